/* make_fgd_seeds.c - seed corpus of fuzz_fgd: `make_fgd_seeds DIR` writes FGDs of every form the
 * reader knows (each model attribute, bases, directives, a malformed one). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const seeds[][2] = {
    { "quake.fgd",
      "// Quake\n@mapsize(-4096, 4096)\n@BaseClass = Appearflags [ spawnflags(Flags) = [ 256 : \"Not in Easy\" : 0 ] ]\n"
      "@BaseClass base(Appearflags) model({ \"path\": \":progs/armor.mdl\", \"skin\": 1, \"frame\": 2 }) = ArmorBase []\n"
      "@PointClass base(Appearflags, ArmorBase) size(-16 -16 0, 16 16 56) color(0 128 0) = item_armor2 : \"Yellow\" []\n"
      "@PointClass model({{ spawnflags & 1 -> \":progs/a.mdl\", \":progs/b.mdl\" }}) = item_spikes []\n"
      "@PointClass model({\"path\": mdl}) = misc_model [ mdl(string) : \"Model\" ]\n@SolidClass = worldspawn : \"World\" [ ]\n" },
    { "halflife.fgd",
      "@BaseClass = Targetname [ targetname(target_source) : \"Name\" ]\n"
      "@PointClass base(Targetname) studio(\"models/player.mdl\") = info_player_start : \"Player\" + \" start\" [ angle(integer) : \"Yaw\" : 0 ]\n"
      "@PointClass sprite() = env_sprite : \"Sprite\" [ model(sprite) : \"Sprite\" : \"sprites/glow01.spr\" ]\n"
      "@PointClass iconsprite(\"sprites/light.spr\") = light : \"Light\" [ _light(color255) : \"Light\" : \"255 255 128 200\" ]\n"
      "@MaterialExclusion [ \"tools\" ]\n@AutoVisGroup = \"Lights\" [ \"Light\" [ \"light\" ] ]\n" },
    { "cycle.fgd", "@BaseClass base(B) = A []\n@BaseClass base(A) = B []\n@PointClass base(A, B) = c []\n" },
    { "bad.fgd", "@PointClass = x [ a(b ]\n" },
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: make_fgd_seeds DIR\n", stderr);
        return 1;
    }
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", argv[1], seeds[i][0]);
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(seeds[i][1], 1, strlen(seeds[i][1]), f) == strlen(seeds[i][1]);
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            fprintf(stderr, "make_fgd_seeds: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}
