// page_test.js - the page (docs/web.md) in headless chromium against `pmfview shot`:
//   node page_test.js PAGE_DIR PMFVIEW WORK_DIR MAP.pmf...
//   (and SOURCE.rmf=COMPILED.pmf: the source compiled in the page against pmfc's compile;
//   SOURCE+FILE...=COMPILED.pmf[@GAME_DIR]: dropped together, GAME_DIR the desktop's --game for
//   the game's files among them: paks, models, the palette; --game-files=DIR: the folder
//   tests/web/game_files.py wrote, with its models.pmf, sky.pmf and sky_bare.pmf compiled by pmfc)
// Serves PAGE_DIR and the maps from 127.0.0.1 (python3 -m http.server, and serve_isolated.py for
// the threaded build), and checks: each map's first complete frame matches `pmfview shot` at the
// same camera and size (>= 99% of pixels within +-8); the threaded build does too; the camera
// round-trips through ?camera= and #camera=; I + click inspects the surface as `shot --inspect`
// does; a hostile file shows the command line's error and
// a map dropped after it still opens; what the address may hold (a camera out of range, names
// with a newline, a leading '-' or none at all, a size past the browser's, more WADs than a
// fixed command line held) opens, is held in range or ends in an error line; a source dropped with
// the game's files (a pak, or a loose model and palette) draws its entities' models as
// `pmfview shot --game` does, and not as `shot --no-models` does; a model missing from the
// dropped files is its entity's marker where `shot` draws it, its warning under the map's name;
// sky pictures dropped as plain files, or in a dropped folder at their paths, make the sky
// `pmfc --game` makes of them; dropped FGDs give a class its model as `--fgd` does (plain files,
// with a source or a .pmf; a folder's), a map's `_tb_def` is found among the dropped files, and
// the inspector names the model under the pointer as `shot --inspect`; lights.rad (in a folder,
// beside the map) and another .rad (`--rad`) light a GoldSrc room as pmfc's compile with it.
// Prints the bench figures. Exit 0 when every check passes.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync, execFileSync } = require('child_process');
const puppeteer = require('puppeteer-core');
const { decodePng } = require('./png.js');

const SIZE = [320, 240];
const TOLERANCE = 8, MIN_MATCH = 0.99;
const MIN_MODEL_PIXELS = 200;
const MIN_MARKER_MATCH = 0.9, MIN_SKY_PIXELS = 5000, MIN_LIGHT_PIXELS = 5000;
const READY_TIMEOUT_MS = 180000;
let failures = 0;

function check(ok, what) {
    console.log((ok ? 'ok   ' : 'FAIL ') + what);
    if (!ok) failures++;
}

function serve(script, port, dir) {
    const args = script ? [script, String(port), dir] : ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '-d', dir];
    return spawn('python3', args, { stdio: 'ignore' });
}

async function waitServer(url) {
    for (let i = 0; i < 100; i++) {
        try {
            if ((await fetch(url)).ok) return;
        } catch (e) { /* not up yet */ }
        await new Promise(r => setTimeout(r, 100));
    }
    throw new Error(url + ' does not answer');
}

async function load(page, url, timeout = READY_TIMEOUT_MS) {
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForFunction(() => document.documentElement.dataset.pmfview, { timeout, polling: 50 }).catch(() => {});
    const state = await page.evaluate(() => document.documentElement.dataset.pmfview);
    return { state, seconds: (Date.now() - t0) / 1000 };
}

// Drops files (URLs of the site) on the page and waits for its state.
async function drop(page, urls) {
    await page.evaluate(async urls => {
        const dt = new DataTransfer();
        for (const u of urls) dt.items.add(new File([await (await fetch(u)).arrayBuffer()], u.split('/').pop()));
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, urls);
    await page.waitForFunction(() => document.documentElement.dataset.pmfview, { timeout: READY_TIMEOUT_MS, polling: 50 });
    return page.evaluate(() => document.documentElement.dataset.pmfview);
}

// What the address may hold (docs/web.md): each case opens, is held in range, or ends in an error line.
async function hostileAddresses(page, base, site, firstName, start, source, wadDrop) {
    const size = `size=${SIZE.join('x')}`, status = () => page.evaluate(() => document.getElementById('status').textContent);
    // a pose as text, a NaN (null through JSON) too
    const text = v => (v ? v.map(x => (typeof x === 'number' ? +x.toFixed(4) : 'NaN')).join(',') : 'none');
    // a yaw of 1e39 (infinite as the module's float): refused with a line, the start camera stands
    let r = await load(page, `${base}?map=maps/${firstName}&${size}&case=yaw#camera=0,0,0,1e39,0`);
    let pose = await page.evaluate(() => window.pmfview.pose());
    let said = await status();
    check(r.state === 'ready' && text(pose) === text(start) && said.includes('not a camera'),
          `#camera=0,0,0,1e39,0: ${r.state}, the start camera ${text(pose)}, "${said.split('\n').pop()}"`);
    // a pitch past 89 held at 89 (as the window's teleport), a yaw past 360 turned back into 0..360
    r = await load(page, `${base}?map=maps/${firstName}&${size}&case=pitch#camera=1,2,3,400,120`);
    pose = await page.evaluate(() => window.pmfview.pose());
    check(r.state === 'ready' && text(pose) === '1,2,3,40,89', `#camera=1,2,3,400,120 gives ${text(pose)}`);
    // a position past the chunk grid's int32 coordinates: held at its edge, the page drawing
    r = await load(page, `${base}?map=maps/${firstName}&${size}&case=far#camera=1e14,0,-1e14,0,0`);
    pose = await page.evaluate(() => window.pmfview.pose());
    check(r.state === 'ready' && pose && pose.every(Number.isFinite) && pose[0] > 1e6 && pose[0] < 1e14 && pose[2] < -1e6 && pose[2] > -1e14,
          `#camera=1e14,0,-1e14,0,0: ${r.state} at ${text(pose)}`);
    // names: a newline (pmfc's command line is an argument a line), a leading '-' (not an option)
    fs.copyFileSync(source, path.join(site, 'maps', '-08.rmf'));
    for (const name of ['08%0A.rmf', '-08.rmf']) {
        r = await load(page, `${base}?map=maps/${name}&${size}`);
        check(r.state === 'ready', `?map=maps/${name} compiled in the page: ${r.state}`);
    }
    // no file at all
    for (const name of ['maps/..', 'maps/.', 'maps/']) {
        r = await load(page, `${base}?map=${name}&${size}`, 20000);
        check(r.state === `error: ${name}: not a file`, `?map=${name}: ${r.state}`);
    }
    // more WADs than a fixed command line held: the last, not a WAD, is still read (pmfc's line)
    const empty = Buffer.from([0x57, 0x41, 0x44, 0x33, 0, 0, 0, 0, 12, 0, 0, 0]);
    const wads = [];
    for (let i = 0; i < 40; i++) {
        wads.push(`empty${String(i).padStart(2, '0')}.wad`);
        fs.writeFileSync(path.join(site, 'maps', wads[i]), empty);
    }
    fs.writeFileSync(path.join(site, 'maps', 'zbroken.wad'), 'NOTAWAD-----');
    await page.goto(`${base}?${size}`);
    await page.waitForFunction(() => window.pmfview && window.pmfview.started, { timeout: READY_TIMEOUT_MS });
    const state = await drop(page, [wadDrop].concat(wads, ['zbroken.wad']).map(n => 'maps/' + n));
    check(state.startsWith('error: zbroken.wad: header, byte 0: bad magic'), `${wadDrop} dropped with 41 WADs, the last broken: ${state}`);
    // a size past what the browser draws: the canvas, its drawing buffer, the viewport drawn and
    // the pixels read (the screenshot's) all the same, within the browser's limits, and said
    r = await load(page, `${base}?map=maps/${firstName}&size=9999x64`);
    const got = await page.evaluate(() => {
        const c = document.getElementById('canvas'), gl = c.getContext('webgl2');
        return { canvas: [c.width, c.height], buffer: [gl.drawingBufferWidth, gl.drawingBufferHeight],
                 viewport: Array.from(gl.getParameter(gl.VIEWPORT)).slice(2), pixels: atob(window.pmfview.pixels()).length,
                 most: Math.min(gl.getParameter(gl.MAX_RENDERBUFFER_SIZE), gl.getParameter(gl.MAX_VIEWPORT_DIMS)[0]),
                 status: document.getElementById('status').textContent };
    });
    const [w, h] = got.canvas;
    check(r.state === 'ready' && w <= got.most && got.buffer.join() === got.canvas.join() && got.viewport.join() === got.canvas.join()
          && got.pixels === w * h * 4 && (w === 9999 || got.status.includes(`size 9999x64 is more than this browser draws: ${w}x${h}`)),
          `?size=9999x64: canvas ${w}x${h}, drawing buffer ${got.buffer.join('x')}, viewport ${got.viewport.join('x')}, `
          + `${got.pixels} bytes read, the browser's most ${got.most}`);
}

const poseText = v => v.map(x => +x.toFixed(4)).join(',');

// The page's canvas against `pmfview shot` at the same camera and size: the share of pixels whose
// channels are all within TOLERANCE.
async function compareWithShot(page, pmfview, map, pose, out, extra = []) {
    const rgba = Buffer.from(await page.evaluate(() => window.pmfview.pixels()), 'base64');
    const t0 = Date.now();
    execFileSync(pmfview, ['shot', map, '-o', out, '--size', SIZE.join('x'), '--camera', poseText(pose), ...extra], { stdio: 'pipe' });
    const shotSeconds = (Date.now() - t0) / 1000;
    const shot = decodePng(fs.readFileSync(out));
    if (shot.width !== SIZE[0] || shot.height !== SIZE[1] || rgba.length !== shot.rgba.length)
        return { match: 0, shotSeconds };
    let good = 0, worst = 0;
    const pixels = SIZE[0] * SIZE[1];
    for (let i = 0; i < pixels; i++) {
        const d = pixelDistance(rgba, shot.rgba, i);
        if (d <= TOLERANCE) good++;
        worst = Math.max(worst, d);
    }
    fs.writeFileSync(out.replace(/\.png$/, '.page.rgba'), rgba);
    return { match: good / pixels, worst, shotSeconds, page: rgba, shot: shot.rgba };
}

// the largest difference of pixel i's channels between two RGBA pictures
function pixelDistance(a, b, i) {
    let d = 0;
    for (let k = 0; k < 3; k++) d = Math.max(d, Math.abs(a[i * 4 + k] - b[i * 4 + k]));
    return d;
}

// Drops files on the page at url, as a folder's files where `relative` is given (the path the
// browser gives a folder's file: webkitRelativePath, as Open folder gives them), or (a folder on
// the disk) that folder as the browser drops it (its entries), and waits for the page's state.
async function dropFiles(page, url, files) {
    await page.goto(url);
    await page.waitForFunction(() => window.pmfview && window.pmfview.started, { timeout: READY_TIMEOUT_MS });
    if (typeof files === 'string') {
        const session = await page.target().createCDPSession();
        const data = { items: [], files: [files], dragOperationsMask: 1 };
        for (const type of ['dragEnter', 'dragOver', 'drop'])
            await session.send('Input.dispatchDragEvent', { type, x: 10, y: 10, data });
    } else await page.evaluate(async files => {
        const dt = new DataTransfer();
        for (const f of files) {
            const file = new File([await (await fetch(f.url)).arrayBuffer()], f.url.split('/').pop());
            if (f.relative) Object.defineProperty(file, 'webkitRelativePath', { value: f.relative });
            dt.items.add(file);
        }
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, files);
    await page.waitForFunction(() => document.documentElement.dataset.pmfview, { timeout: READY_TIMEOUT_MS, polling: 50 });
    return page.evaluate(() => document.documentElement.dataset.pmfview);
}

// The game's loose files (tests/web/game_files.py's folder, at maps/game_files/ of the site): a
// model the dropped files lack is drawn as its entity's marker, as `shot` draws it, and its
// warning is under the map's name; sky pictures dropped as plain files, or in a dropped folder at
// their paths (the map among them), are the sky `pmfc --game` makes of them.
async function gameFiles(page, base, pmfview, dir, site, workDir) {
    const at = name => ({ url: 'maps/game_files/' + name });
    const url = `${base}?size=${SIZE.join('x')}`;
    let state = await dropFiles(page, url, [at('models.map'), at('loose/palette.lmp')]);
    let status = await page.evaluate(() => document.getElementById('status').textContent);
    check(state === 'ready' && status.includes('warning: item_armor1 (progs/armor.mdl): '),
          `models.map + palette.lmp, no armor.mdl: ${state}, the warning shown: "${status.split('\n').find(l => l.includes('item_armor1'))}"`);
    if (state === 'ready') {
        const pose = await page.evaluate(() => window.pmfview.pose());
        const game = ['--game', path.join(dir, 'palette')], out = path.join(workDir, 'marker.png');
        const c = await compareWithShot(page, pmfview, path.join(dir, 'models.pmf'), pose, out, game);
        const bare = await compareWithShot(page, pmfview, path.join(dir, 'models.pmf'), pose, out.replace(/\.png$/, '.bare.png'),
                                           game.concat('--no-models'));
        // the marker and its label: where shot's picture differs from shot --no-models'
        let marker = 0, same = 0;
        for (let i = 0; i < SIZE[0] * SIZE[1]; i++)
            if (c.shot && bare.shot && pixelDistance(c.shot, bare.shot, i) > TOLERANCE) {
                marker++;
                same += pixelDistance(c.page, c.shot, i) <= TOLERANCE;
            }
        check(c.match >= MIN_MATCH && marker >= MIN_MODEL_PIXELS && same >= MIN_MARKER_MATCH * marker,
              `the missing armour's marker: ${same} of the ${marker} pixels shot draws it on as shot does, `
              + `${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot --game`);
    }
    const sky = ['rt', 'up', 'ft', 'lf', 'dn', 'bk'].map(face => `gfx/env/test${face}.tga`);
    const drops = {
        'sky.map + the sky pictures, the armour and the palette dropped as plain files':
            ['sky.map', 'loose/armor.mdl', 'loose/palette.lmp'].concat(sky.map(p => 'loose/' + p.split('/').pop())).map(at),
        'the folder sky/ (maps/sky.map, gfx/env/, gfx/palette.lmp, progs/armor.mdl) opened':
            ['maps/sky.map', 'progs/armor.mdl', 'gfx/palette.lmp'].concat(sky).map(p => ({ ...at('sky/' + p), relative: 'sky/' + p })),
        'the folder sky/ dropped': path.join(site, 'maps', 'game_files', 'sky'),
    };
    for (const [what, files] of Object.entries(drops)) {
        state = await dropFiles(page, url, files);
        check(state === 'ready', `${what}: ${state}`);
        if (state !== 'ready') continue;
        const pose = await page.evaluate(() => window.pmfview.pose());
        const game = ['--game', path.join(dir, 'sky')], out = path.join(workDir, 'sky' + Object.keys(drops).indexOf(what) + '.png');
        const c = await compareWithShot(page, pmfview, path.join(dir, 'sky.pmf'), pose, out, game);
        const bare = await compareWithShot(page, pmfview, path.join(dir, 'sky_bare.pmf'), pose, out.replace(/\.png$/, '.bare.png'), game);
        const skyPixels = Math.round((1 - bare.match) * SIZE[0] * SIZE[1]);
        check(c.match >= MIN_MATCH && skyPixels >= MIN_SKY_PIXELS,
              `${what}: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot --game of pmfc --game's compile, `
              + `${skyPixels} pixels unlike the compile without the pictures`);
    }
}

// Drops files (dropFiles) and checks the page's picture against `pmfview shot` of the desktop's
// compile (shot: [PMF, ARGS...]) and that at least `least` of its pixels are unlike shot's picture
// without what the drop tests (without: [PMF, ARGS...]). The page's pose and the comparison, or
// null when the page is not ready.
async function dropAgainstShot(page, url, pmfview, workDir, what, files, shot, without, least) {
    const state = await dropFiles(page, url, files);
    check(state === 'ready', `${what}: ${state}`);
    if (state !== 'ready') return null;
    const pose = await page.evaluate(() => window.pmfview.pose());
    const out = path.join(workDir, what.replace(/[^A-Za-z0-9.]+/g, '_').slice(0, 80) + '.png');
    const c = await compareWithShot(page, pmfview, shot[0], pose, out, shot.slice(1));
    const bare = await compareWithShot(page, pmfview, without[0], pose, out.replace(/\.png$/, '.without.png'), without.slice(1));
    const unlike = Math.round((1 - bare.match) * SIZE[0] * SIZE[1]);
    const args = list => [path.basename(list[0])].concat(list.slice(1).map(a => (a.startsWith('/') ? path.basename(a) : a))).join(' ');
    check(c.match >= MIN_MATCH && unlike >= least,
          `${what}: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot ${args(shot)}, `
          + `${unlike} pixels unlike shot ${args(without)}`);
    return { pose, c, bare };
}

// I + click on canvas pixel `at`: the inspector's panel (hidden, text) and its JSON.
async function inspectOnPage(page, at) {
    const box = await page.evaluate(() => { const b = document.getElementById('canvas').getBoundingClientRect(); return [b.left, b.top]; });
    await page.keyboard.down('KeyI');
    await page.mouse.click(box[0] + at[0] + 0.5, box[1] + at[1] + 0.5);
    await page.keyboard.up('KeyI');
    const shown = await page.evaluate(() => { const p = document.getElementById('inspect'); return { hidden: p.hidden, text: p.textContent, json: p.dataset.json || '' }; });
    try { shown.result = JSON.parse(shown.json); } catch (e) { shown.result = {}; }
    return shown;
}

// The pixel of the model nearest the middle of those where `with` and `without` (two RGBA
// pictures of SIZE) differ, or null when none do.
function modelPixel(withModel, without) {
    const covered = [];
    for (let i = 0; i < SIZE[0] * SIZE[1]; i++)
        if (pixelDistance(withModel, without, i) > TOLERANCE) covered.push([i % SIZE[0], Math.floor(i / SIZE[0])]);
    if (!covered.length) return null;
    const mid = [0, 1].map(k => covered.reduce((sum, p) => sum + p[k], 0) / covered.length);
    const far = p => (p[0] - mid[0]) ** 2 + (p[1] - mid[1]) ** 2;
    return covered.reduce((best, p) => (far(p) < far(best) ? p : best));
}

// Entity definitions (docs/web.md): FGDs dropped as plain files are --fgd to pmfc and the viewer,
// a map's _tb_def is found among the dropped files (the folder's other FGDs not read), a folder's
// FGDs serve a map naming none; the inspector names the model under a pixel as `shot --inspect`.
// GoldSrc's texture lights: lights.rad in a dropped folder or beside the map, another .rad as
// --rad. Each against `pmfview shot` of the desktop's compile with the same files.
async function definitionsAndLights(page, base, pmfview, dir, site, workDir) {
    const at = name => ({ url: 'maps/game_files/' + name });
    const inFolder = (folder, names) => names.map(p => ({ ...at(folder + '/' + p), relative: folder + '/' + p }));
    const url = `${base}?size=${SIZE.join('x')}`, G = f => path.join(dir, f);
    const fgdShot = [G('fgd.pmf'), '--game', G('fgdgame')], bare = [G('fgd_bare.pmf'), '--game', G('fgdgame')];
    const loose = ['loose/test.fgd', 'loose/armor.mdl', 'loose/palette.lmp'].map(at);
    const plain = await dropAgainstShot(page, url, pmfview, workDir, 'fgd.map + test.fgd, armor.mdl, palette.lmp dropped',
                                        [at('fgd.map')].concat(loose), fgdShot, bare, MIN_MODEL_PIXELS);
    if (plain) {
        // the inspector on the model item_test shows, as the desktop's
        const pixel = modelPixel(plain.c.shot, plain.bare.shot);
        const shown = pixel ? await inspectOnPage(page, pixel) : { result: {}, text: '' };
        const desk = pixel ? JSON.parse(execFileSync(pmfview, ['shot', ...fgdShot, '--size', SIZE.join('x'), '--camera', poseText(plain.pose),
                                                                '--inspect', pixel.join(',')], { stdio: 'pipe' }).toString()) : {};
        const model = shown.result.model || {};
        check(pixel && desk.model && desk.model.class === 'item_test' && JSON.stringify(model) === JSON.stringify(desk.model)
              && shown.text.includes(`model of item_test: ${desk.model.file} frame ${desk.model.frame}`),
              `inspector at ${pixel}: the model of ${model.class}: ${model.file} frame ${model.frame} `
              + `(pmfview shot --inspect: ${desk.model ? `${desk.model.class}: ${desk.model.file} frame ${desk.model.frame}` : 'none'})`);
    }
    await dropAgainstShot(page, url, pmfview, workDir, 'fgd_bare.pmf + test.fgd, armor.mdl, palette.lmp dropped',
                          [at('fgd_bare.pmf')].concat(loose), bare.concat('--fgd', G('loose/test.fgd')), bare, MIN_MODEL_PIXELS);
    await dropAgainstShot(page, url, pmfview, workDir, 'the folder fgdgame/ (maps/fgd.map, fgd/test.fgd) opened',
                          inFolder('fgdgame', ['maps/fgd.map', 'fgd/test.fgd', 'progs/armor.mdl', 'gfx/palette.lmp']),
                          fgdShot, bare, MIN_MODEL_PIXELS);
    await dropAgainstShot(page, url, pmfview, workDir, 'the folder tbdef/ (its map\'s _tb_def test.fgd, a broken.fgd) dropped',
                          path.join(site, 'maps', 'game_files', 'tbdef'), [G('tbdef.pmf'), '--game', G('tbdef')], bare,
                          MIN_MODEL_PIXELS);
    const lit = [G('rad.pmf')], dark = [G('rad_bare.pmf')];
    await dropAgainstShot(page, url, pmfview, workDir, 'the folder rad/ (maps/rad.map, lights.rad) opened',
                          inFolder('rad', ['maps/rad.map', 'lights.rad']), lit, dark, MIN_LIGHT_PIXELS);
    await dropAgainstShot(page, url, pmfview, workDir, 'rad.map + lights.rad dropped', [at('rad.map'), at('rad/lights.rad')],
                          lit, dark, MIN_LIGHT_PIXELS);
    await dropAgainstShot(page, url, pmfview, workDir, 'rad.map + lamps.rad dropped (--rad)', [at('rad.map'), at('loose/lamps.rad')],
                          [G('rad_flag.pmf')], dark, MIN_LIGHT_PIXELS);
}

async function main() {
    // MAP.pmf arguments; SOURCE=COMPILED.pmf (opened by ?map= and compiled in the page, compared
    // with the desktop's compile); SOURCE+FILE...=COMPILED.pmf (dropped together on the threaded
    // page: a .map with its WAD)
    const [pageDir, pmfviewArg, workDir, ...options] = process.argv.slice(2);
    const gameFilesDir = (options.find(a => a.startsWith('--game-files=')) || '').replace('--game-files=', '');
    const args = options.filter(a => !a.startsWith('--game-files='));
    const maps = args.filter(a => !a.includes('='));
    const pairs = args.filter(a => a.includes('='))
        .map(a => [a.split('=')[0].split('+'), a.split('=')[1].split('@')[0], a.split('=')[1].split('@')[1]]);
    const rmfs = pairs.filter(p => p[0].length === 1).map(p => [p[0][0], p[1]]);
    const drops = pairs.filter(p => p[0].length > 1);
    const pmfview = path.resolve(pmfviewArg);
    const site = path.join(workDir, 'site');
    fs.rmSync(site, { recursive: true, force: true });
    fs.mkdirSync(path.join(site, 'maps'), { recursive: true });
    for (const f of fs.readdirSync(pageDir)) fs.copyFileSync(path.join(pageDir, f), path.join(site, f));
    for (const m of maps.concat(...pairs.map(p => p[0]))) fs.copyFileSync(m, path.join(site, 'maps', path.basename(m)));
    if (gameFilesDir) fs.cpSync(gameFilesDir, path.join(site, 'maps', 'game_files'), { recursive: true });
    // a hostile file: a real map cut short inside its chunk index
    const hostile = path.join(site, 'maps', 'hostile.pmf');
    fs.writeFileSync(hostile, fs.readFileSync(maps[0]).subarray(0, 100));

    const port = 18000 + (process.pid % 1000) * 2;
    const servers = [serve(null, port, site), serve(path.join(__dirname, 'serve_isolated.py'), port + 1, site)];
    let browser;
    try {
        await waitServer(`http://127.0.0.1:${port}/index.html`);
        await waitServer(`http://127.0.0.1:${port + 1}/index.html`);
        browser = await puppeteer.launch({
            executablePath: process.env.PMFVIEW_CHROMIUM || '/usr/bin/chromium',
            headless: 'new',
            args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--window-size=800,600'],
        });
        const page = await browser.newPage();
        page.on('console', m => { if (m.type() === 'error') console.log('  page: ' + m.text()); });
        page.on('pageerror', e => console.log('  page error: ' + e.message));
        const base = `http://127.0.0.1:${port}/`;

        // 1. every map at its start camera, single-threaded (the default host)
        let bench = null, start = null;
        for (const m of maps) {
            const name = path.basename(m);
            const r = await load(page, `${base}?map=maps/${name}&size=${SIZE.join('x')}`);
            check(r.state === 'ready', `${name}: ready (${r.state}) in ${r.seconds.toFixed(2)} s`);
            if (r.state !== 'ready') continue;
            const pose = await page.evaluate(() => window.pmfview.pose());
            if (!start) start = pose;
            const c = await compareWithShot(page, pmfview, m, pose, path.join(workDir, name + '.png'));
            check(c.match >= MIN_MATCH, `${name}: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot (worst ${c.worst}) at ${poseText(pose)}`);
            if (!bench) bench = { name, page: r.seconds, shot: c.shotSeconds };
        }

        // 1b. an RMF compiled in the page by pmfc's code, against the desktop's compile of it
        for (const [source, compiled] of rmfs) {
            const name = path.basename(source);
            const r = await load(page, `${base}?map=maps/${name}&size=${SIZE.join('x')}`);
            check(r.state === 'ready', `${name} compiled in the page: ready (${r.state}) in ${r.seconds.toFixed(2)} s`);
            if (r.state !== 'ready') continue;
            const pose = await page.evaluate(() => window.pmfview.pose());
            const c = await compareWithShot(page, pmfview, compiled, pose, path.join(workDir, name + '.png'));
            check(c.match >= MIN_MATCH, `${name} compiled in the page: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot of pmfc's compile (worst ${c.worst})`);
        }

        // 1c. the surface inspector: I + click on a pixel shows what `pmfview shot --inspect` says of it
        {
            const name = path.basename(maps[0]);
            const r = await load(page, `${base}?map=maps/${name}&size=${SIZE.join('x')}`);
            const pose = await page.evaluate(() => window.pmfview.pose());
            const at = [Math.floor(SIZE[0] / 2), Math.floor(SIZE[1] * 2 / 3)];
            const box = await page.evaluate(() => { const b = document.getElementById('canvas').getBoundingClientRect(); return [b.left, b.top]; });
            await page.keyboard.down('KeyI');
            await page.mouse.click(box[0] + at[0] + 0.5, box[1] + at[1] + 0.5);
            await page.keyboard.up('KeyI');
            const shown = await page.evaluate(() => { const p = document.getElementById('inspect'); return { hidden: p.hidden, text: p.textContent, json: p.dataset.json || '' }; });
            const desk = JSON.parse(execFileSync(pmfview, ['shot', maps[0], '--size', SIZE.join('x'), '--camera', poseText(pose),
                                                           '--inspect', at.join(',')], { stdio: 'pipe' }).toString());
            let got = {};
            try { got = JSON.parse(shown.json); } catch (e) { /* checked below */ }
            const same = ['hit', 'material', 'chunk', 'cube', 'lightmap'].every(k => JSON.stringify(got[k]) === JSON.stringify(desk[k]));
            check(r.state === 'ready' && !shown.hidden && desk.hit === true && same && shown.text.includes(desk.material),
                  `inspector at ${at.join(',')}: ${got.material} (chunk ${JSON.stringify(got.chunk)}, cube ${got.cube}) as pmfview shot --inspect says (${desk.material}, cube ${desk.cube})`);
            await page.keyboard.down('KeyI');
            await page.keyboard.up('KeyI');
            check(await page.evaluate(() => document.getElementById('inspect').hidden), 'I tapped alone closes the inspector');
        }

        // 2. the camera through the address: ?camera= opens there, #camera= follows, a #camera= link opens there
        const first = maps[0], firstName = path.basename(first);
        const moved = [start[0] + 1.5, start[1] + 0.5, start[2] - 2, (start[3] + 30) % 360, -10];
        let r = await load(page, `${base}?map=maps/${firstName}&size=${SIZE.join('x')}&camera=${poseText(moved)}`);
        const got = await page.evaluate(() => window.pmfview.pose());
        check(r.state === 'ready' && got.every((v, i) => Math.abs(v - moved[i]) < 1e-3), `?camera=${poseText(moved)} opens there (${poseText(got)})`);
        const c = await compareWithShot(page, pmfview, first, moved, path.join(workDir, 'camera.png'));
        check(c.match >= MIN_MATCH, `?camera=: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot --camera`);
        await page.evaluate(() => window.pmfview.setPose([1, 2, 3, 45, 5]));
        await page.waitForFunction(() => location.hash === '#camera=1,2,3,45,5', { timeout: 5000 }).catch(() => {});
        const hash = await page.evaluate(() => location.hash);
        check(hash === '#camera=1,2,3,45,5', `#camera= follows the camera (${hash})`);
        r = await load(page, `${base}?map=maps/${firstName}&size=${SIZE.join('x')}#camera=4,5,6,90,-20`);
        const linked = await page.evaluate(() => window.pmfview.pose());
        check(r.state === 'ready' && poseText(linked) === '4,5,6,90,-20', `a #camera= link opens there (${poseText(linked)})`);

        // 3. a hostile file: the command line's one line; then a dropped map still opens
        let cli = '';
        try {
            execFileSync(pmfview, ['info', 'hostile.pmf'], { cwd: path.join(site, 'maps'), stdio: 'pipe' });
        } catch (e) {
            cli = e.stderr.toString().trim().split('\n')[0].replace(/^pmfview: /, '');
        }
        r = await load(page, `${base}?map=maps/hostile.pmf&size=${SIZE.join('x')}`);
        check(cli !== '' && r.state === 'error: ' + cli, `hostile file: "${r.state}" (command line: "${cli}")`);
        if (rmfs.length) {
            // a hostile RMF: pmfc's own last line, compiled in the page as on the command line
            const bad = path.join(site, 'maps', 'hostile.rmf');
            fs.writeFileSync(bad, fs.readFileSync(rmfs[0][0]).subarray(0, 60));
            const run = spawnSync(pmfview.replace(/pmfview$/, 'pmfc'), ['hostile.rmf', '-o', 'hostile_out.pmf'],
                                  { cwd: path.join(site, 'maps') });
            const pmfcLine = run.stderr.toString().trim().split('\n').pop().replace(/^pmfc: /, '');
            r = await load(page, `${base}?map=maps/hostile.rmf&size=${SIZE.join('x')}`);
            check(run.status !== 0 && r.state === 'error: ' + pmfcLine, `hostile RMF: "${r.state}" (pmfc: "${pmfcLine}")`);
        }
        await page.evaluate(async url => {
            const bytes = await (await fetch(url)).arrayBuffer();
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], url.split('/').pop()));
            window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        }, `maps/${firstName}`);
        // the hostile file's state stands until the drop's handler clears it: wait for the next one
        await page.waitForFunction(before => {
            const state = document.documentElement.dataset.pmfview;
            return state && state !== before;
        }, { timeout: READY_TIMEOUT_MS, polling: 50 }, r.state);
        const dropped = await page.evaluate(() => document.documentElement.dataset.pmfview);
        check(dropped === 'ready', `a map dropped after the hostile one: ${dropped}`);

        // 3b. what the address may hold
        if (rmfs.length && drops.length)
            await hostileAddresses(page, base, site, firstName, start, rmfs[0][0], path.basename(drops[0][0][0]));

        // 4. the threaded build, where the host isolates the page
        const iso = `http://127.0.0.1:${port + 1}/`;
        r = await load(page, `${iso}?map=maps/${firstName}&size=${SIZE.join('x')}&camera=${poseText(start)}`);
        const threaded = await page.evaluate(() => window.pmfview.threaded);
        check(threaded && r.state === 'ready', `COOP/COEP host: threaded build ${threaded}, ${r.state} in ${r.seconds.toFixed(2)} s`);
        if (r.state === 'ready') {
            const t = await compareWithShot(page, pmfview, first, start, path.join(workDir, 'threaded.png'));
            check(t.match >= MIN_MATCH, `threaded: ${(t.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot`);
        }

        // 4b. a source dropped with what it needs, compiled on a worker thread
        for (const [files, compiled, game] of drops) {
            const names = files.map(f => path.basename(f));
            await page.goto(`${iso}?size=${SIZE.join('x')}`);
            await page.waitForFunction(() => window.pmfview && window.pmfview.started, { timeout: READY_TIMEOUT_MS });
            await page.evaluate(async urls => {
                const dt = new DataTransfer();
                for (const u of urls) dt.items.add(new File([await (await fetch(u)).arrayBuffer()], u.split('/').pop()));
                window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
            }, names.map(n => 'maps/' + n));
            await page.waitForFunction(() => document.documentElement.dataset.pmfview, { timeout: READY_TIMEOUT_MS, polling: 50 });
            const state = await page.evaluate(() => document.documentElement.dataset.pmfview);
            check(state === 'ready', `${names.join(' + ')} dropped, compiled on a worker thread: ${state}`);
            if (state !== 'ready') continue;
            const pose = await page.evaluate(() => window.pmfview.pose());
            const shown = path.join(workDir, names.join('+') + '.png');
            const c = await compareWithShot(page, pmfview, compiled, pose, shown, game ? ['--game', game] : []);
            check(c.match >= MIN_MATCH, `${names.join(' + ')}: ${(c.match * 100).toFixed(2)}% of pixels within ±${TOLERANCE} of pmfview shot${game ? ' --game' : ''} of pmfc's compile`);
            if (!game) continue;
            // the models are there: the picture differs from the desktop's without them
            const bare = await compareWithShot(page, pmfview, compiled, pose, shown.replace(/\.png$/, '.bare.png'), ['--game', game, '--no-models']);
            const covered = Math.round((1 - bare.match) * SIZE[0] * SIZE[1]);
            check(covered >= MIN_MODEL_PIXELS, `${names.join(' + ')}: the models cover ${covered} pixels (shot --no-models differs there)`);
        }

        // 4c. the game's loose files: a missing model's marker, sky pictures plain and in a folder
        if (gameFilesDir) {
            await gameFiles(page, base, pmfview, path.resolve(gameFilesDir), site, workDir);
            await definitionsAndLights(page, base, pmfview, path.resolve(gameFilesDir), site, workDir);
        }

        // 5. bench: navigation to ready beside the desktop's shot, and a flight's frame time
        if (bench)
            console.log(`bench: ${bench.name}: page navigation to ready ${bench.page.toFixed(2)} s, pmfview shot ${bench.shot.toFixed(2)} s`);
        await load(page, `${base}?map=maps/${firstName}&size=${SIZE.join('x')}`);
        await page.keyboard.down('KeyW');
        const frameMs = await page.evaluate(() => new Promise(done => {
            const times = [];
            const tick = t => { times.push(t); if (times.length < 61) requestAnimationFrame(tick); else done((times[60] - times[0]) / 60); };
            requestAnimationFrame(tick);
        }));
        await page.keyboard.up('KeyW');
        // the desktop over the same flight: 60 frames from the start camera 8 m forward
        const rad = Math.PI / 180, [yaw, pitch] = [start[3] * rad, start[4] * rad];
        const ahead = [start[0] - 8 * Math.sin(yaw) * Math.cos(pitch), start[1] + 8 * Math.sin(pitch),
                       start[2] - 8 * Math.cos(yaw) * Math.cos(pitch), start[3], start[4]];
        const pathFile = path.join(workDir, 'flight.txt');
        fs.writeFileSync(pathFile, poseText(start) + '\n' + poseText(ahead) + '\n');
        const desk = spawnSync(pmfview, ['shot', first, '-o', path.join(workDir, 'flight.png'), '--size', SIZE.join('x'),
                                            '--frames', '60', '--path', pathFile], { encoding: 'buffer' });
        const deskMs = /average frame time: ([0-9.]+) ms/.exec(desk.stderr.toString());
        console.log(`bench: flight of 60 frames: page ${frameMs.toFixed(1)} ms a frame (headless chromium, SwiftShader, `
                    + `capped by its frame clock), pmfview shot --frames 60 --path ${deskMs ? deskMs[1] : '?'} ms a frame`);
    } finally {
        if (browser) await browser.close();
        for (const s of servers) s.kill();
    }
    console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
    process.exit(failures ? 1 : 0);
}

main().catch(e => { console.error(e); process.exit(1); });
