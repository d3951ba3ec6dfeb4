/* scene_model_classes.c - the built-in entity classes (docs/models.md): the model each class's own
 * game code gives it, Quake's (progs.dat) and Half-Life's (its game DLL, the models halflife.fgd
 * shows), for an entity no definition or `model` key gives one. */
#include <strings.h>

#include "scene_internal.h"

/* Quake's classes whose model is a BSP (ammo boxes, health) or depends on the world type (keys)
 * are not here. */
static const scene_model_class quake_classes[] = {
    { "item_armor1", "progs/armor.mdl", NULL, 0 },
    { "item_armor2", "progs/armor.mdl", NULL, 1 },
    { "item_armorInv", "progs/armor.mdl", NULL, 2 },
    { "item_artifact_super_damage", "progs/quaddama.mdl", NULL, 0 },
    { "item_artifact_invulnerability", "progs/invulner.mdl", NULL, 0 },
    { "item_artifact_envirosuit", "progs/suit.mdl", NULL, 0 },
    { "item_artifact_invisibility", "progs/invisibl.mdl", NULL, 0 },
    { "weapon_supershotgun", "progs/g_shot.mdl", NULL, 0 },
    { "weapon_nailgun", "progs/g_nail.mdl", NULL, 0 },
    { "weapon_supernailgun", "progs/g_nail2.mdl", NULL, 0 },
    { "weapon_grenadelauncher", "progs/g_rock.mdl", NULL, 0 },
    { "weapon_rocketlauncher", "progs/g_rock2.mdl", NULL, 0 },
    { "weapon_lightning", "progs/g_light.mdl", NULL, 0 },
    { "light_torch_small_walltorch", "progs/flame.mdl", NULL, 0 },
    { "light_flame_large_yellow", "progs/flame2.mdl", "flameb", 0 },
    { "light_flame_small_yellow", "progs/flame2.mdl", "flame", 0 },
    { "light_flame_small_white", "progs/flame2.mdl", "flame", 0 },
    { "light_globe", "progs/s_light.spr", NULL, 0 },
    { "info_player_start", "progs/player.mdl", NULL, 0 },
    { "info_player_deathmatch", "progs/player.mdl", NULL, 0 },
    { "info_player_coop", "progs/player.mdl", NULL, 0 },
    { "monster_army", "progs/soldier.mdl", "stand", 0 },
    { "monster_dog", "progs/dog.mdl", "stand", 0 },
    { "monster_ogre", "progs/ogre.mdl", "stand", 0 },
    { "monster_knight", "progs/knight.mdl", "stand", 0 },
    { "monster_hell_knight", "progs/hknight.mdl", "stand", 0 },
    { "monster_zombie", "progs/zombie.mdl", "stand", 0 },
    { "monster_demon1", "progs/demon.mdl", "stand", 0 },
    { "monster_shambler", "progs/shambler.mdl", "stand", 0 },
    { "monster_wizard", "progs/wizard.mdl", "hover", 0 },
    { "monster_enforcer", "progs/enforcer.mdl", "stand", 0 },
    { "monster_shalrath", "progs/shalrath.mdl", "walk", 0 },
    { "monster_tarbaby", "progs/tarbaby.mdl", "walk", 0 },
    { "monster_fish", "progs/fish.mdl", "swim", 0 },
};

/* Half-Life's items, weapons, ammunition and monsters (their studio models' bind pose). Classes
 * whose model is the entity's `model` key (env_sprite, env_glow, cycler, cycler_sprite,
 * monster_generic, monster_furniture) take it from there; those drawing a view model's body
 * (weapon_tripmine) or nothing (info_player_start) are not here. */
static const scene_model_class halflife_classes[] = {
    { "item_healthkit", "models/w_medkit.mdl", NULL, 0 },
    { "item_battery", "models/w_battery.mdl", NULL, 0 },
    { "item_suit", "models/w_suit.mdl", NULL, 0 },
    { "item_longjump", "models/w_longjump.mdl", NULL, 0 },
    { "item_antidote", "models/w_antidote.mdl", NULL, 0 },
    { "item_security", "models/w_security.mdl", NULL, 0 },
    { "item_airtank", "models/w_oxygen.mdl", NULL, 0 },
    { "weaponbox", "models/w_weaponbox.mdl", NULL, 0 },
    { "weapon_crowbar", "models/w_crowbar.mdl", NULL, 0 },
    { "weapon_9mmhandgun", "models/w_9mmhandgun.mdl", NULL, 0 },
    { "weapon_glock", "models/w_9mmhandgun.mdl", NULL, 0 },
    { "weapon_357", "models/w_357.mdl", NULL, 0 },
    { "weapon_python", "models/w_357.mdl", NULL, 0 },
    { "weapon_9mmAR", "models/w_9mmAR.mdl", NULL, 0 },
    { "weapon_mp5", "models/w_9mmAR.mdl", NULL, 0 },
    { "weapon_shotgun", "models/w_shotgun.mdl", NULL, 0 },
    { "weapon_crossbow", "models/w_crossbow.mdl", NULL, 0 },
    { "weapon_rpg", "models/w_rpg.mdl", NULL, 0 },
    { "weapon_gauss", "models/w_gauss.mdl", NULL, 0 },
    { "weapon_egon", "models/w_egon.mdl", NULL, 0 },
    { "weapon_hornetgun", "models/w_hgun.mdl", NULL, 0 },
    { "weapon_handgrenade", "models/w_grenade.mdl", NULL, 0 },
    { "weapon_satchel", "models/w_satchel.mdl", NULL, 0 },
    { "weapon_snark", "models/w_sqknest.mdl", NULL, 0 },
    { "ammo_9mmclip", "models/w_9mmclip.mdl", NULL, 0 },
    { "ammo_glockclip", "models/w_9mmclip.mdl", NULL, 0 },
    { "ammo_9mmAR", "models/w_9mmARclip.mdl", NULL, 0 },
    { "ammo_mp5clip", "models/w_9mmARclip.mdl", NULL, 0 },
    { "ammo_9mmbox", "models/w_chainammo.mdl", NULL, 0 },
    { "ammo_ARgrenades", "models/w_ARgrenade.mdl", NULL, 0 },
    { "ammo_mp5grenades", "models/w_ARgrenade.mdl", NULL, 0 },
    { "ammo_357", "models/w_357ammobox.mdl", NULL, 0 },
    { "ammo_buckshot", "models/w_shotbox.mdl", NULL, 0 },
    { "ammo_crossbow", "models/w_crossbow_clip.mdl", NULL, 0 },
    { "ammo_rpgclip", "models/w_rpgammo.mdl", NULL, 0 },
    { "ammo_gaussclip", "models/w_gaussammo.mdl", NULL, 0 },
    { "ammo_egonclip", "models/w_chainammo.mdl", NULL, 0 },
    { "monster_alien_controller", "models/controller.mdl", NULL, 0 },
    { "monster_alien_grunt", "models/agrunt.mdl", NULL, 0 },
    { "monster_alien_slave", "models/islave.mdl", NULL, 0 },
    { "monster_vortigaunt", "models/islave.mdl", NULL, 0 },
    { "monster_apache", "models/apache.mdl", NULL, 0 },
    { "monster_babycrab", "models/baby_headcrab.mdl", NULL, 0 },
    { "monster_barnacle", "models/barnacle.mdl", NULL, 0 },
    { "monster_barney", "models/barney.mdl", NULL, 0 },
    { "monster_barney_dead", "models/barney.mdl", NULL, 0 },
    { "monster_bigmomma", "models/big_mom.mdl", NULL, 0 },
    { "monster_bloater", "models/floater.mdl", NULL, 0 },
    { "monster_bullchicken", "models/bullsquid.mdl", NULL, 0 },
    { "monster_cockroach", "models/roach.mdl", NULL, 0 },
    { "monster_gargantua", "models/garg.mdl", NULL, 0 },
    { "monster_gman", "models/gman.mdl", NULL, 0 },
    { "monster_headcrab", "models/headcrab.mdl", NULL, 0 },
    { "monster_houndeye", "models/houndeye.mdl", NULL, 0 },
    { "monster_human_assassin", "models/hassassin.mdl", NULL, 0 },
    { "monster_human_grunt", "models/hgrunt.mdl", NULL, 0 },
    { "monster_hgrunt_dead", "models/hgrunt.mdl", NULL, 0 },
    { "monster_hevsuit_dead", "models/player.mdl", NULL, 0 },
    { "monster_ichthyosaur", "models/icky.mdl", NULL, 0 },
    { "monster_leech", "models/leech.mdl", NULL, 0 },
    { "monster_miniturret", "models/miniturret.mdl", NULL, 0 },
    { "monster_nihilanth", "models/nihilanth.mdl", NULL, 0 },
    { "monster_osprey", "models/osprey.mdl", NULL, 0 },
    { "monster_rat", "models/bigrat.mdl", NULL, 0 },
    { "monster_scientist", "models/scientist.mdl", NULL, 0 },
    { "monster_scientist_dead", "models/scientist.mdl", NULL, 0 },
    { "monster_sitting_scientist", "models/scientist.mdl", NULL, 0 },
    { "monster_sentry", "models/sentry.mdl", NULL, 0 },
    { "monster_snark", "models/w_squeak.mdl", NULL, 0 },
    { "monster_tentacle", "models/tentacle2.mdl", NULL, 0 },
    { "monster_turret", "models/turret.mdl", NULL, 0 },
    { "monster_zombie", "models/zombie.mdl", NULL, 0 },
};

static const scene_model_class *find_in(const scene_model_class *table, size_t count, const char *classname)
{
    for (size_t i = 0; i < count; i++)
        if (!strcasecmp(table[i].classname, classname))
            return &table[i];
    return NULL;
}

const scene_model_class *scene_model_class_find(const char *classname, bool goldsrc)
{
    if (goldsrc)
        return find_in(halflife_classes, sizeof halflife_classes / sizeof *halflife_classes, classname);
    return find_in(quake_classes, sizeof quake_classes / sizeof *quake_classes, classname);
}
