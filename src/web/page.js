// page.js - the page's side of pmfview in the browser (docs/web.md): picks the threaded build
// when the page is cross-origin isolated, fetches or takes a dropped map, runs the frame loop, and
// turns keys, mouse and touch into camera moves. document.documentElement.dataset.pmfview says
// "ready" once the first frame with every chunk in view resident is on the canvas, or
// "error: MESSAGE" (the command line's one line, without "pmfview: ").
'use strict';
(function () {
    const canvas = document.getElementById('canvas');
    const hud = document.getElementById('hud');
    const status = document.getElementById('status');
    const inspector = document.getElementById('inspect');
    const root = document.documentElement;
    const query = new URLSearchParams(location.search);
    const threaded = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
    const BASE_SPEED = 8, LOOK_DEGREES_PER_PIXEL = 0.15, HASH_INTERVAL_MS = 250;
    let M = null, opened = false, announced = false, lastFrame = 0, lastHash = 0, lastHashText = '';
    const settings = { mode: 0, luxel: 0, wire: 0, vis: 0, fog: 0, noSky: 0, exposure: 1 };
    const keys = new Set();
    let speed = BASE_SPEED, look = [0, 0], touchMove = [0, 0];
    // animations (texture frames, UV scroll, liquids, clouds, light styles) stand at time 0, as
    // `pmfview shot` draws them, until T starts the clock
    let animating = false, animationStart = 0;
    // the surface inspector: I + click shows the pixel clicked (the centre while the mouse is
    // captured), I tapped alone closes it, as in the window
    let inspectClicked = false;

    function say(text) { status.textContent = text; }
    function announce(state) {
        if (!announced) {
            announced = true;
            root.dataset.pmfview = state;
        }
    }
    function fail(message) {
        say('error: ' + message);
        announce('error: ' + message);
    }

    // "X,Y,Z,YAW,PITCH": five numbers within ±1e15 (the desktop's --camera), else null. The
    // module holds the pitch within ±89 and the position within its chunk grid.
    function parsePose(text) {
        if (!text) return null;
        const v = text.split(',').map(Number);
        return v.length === 5 && v.every(x => Number.isFinite(x) && Math.abs(x) <= 1e15) ? v : null;
    }
    function parseSize(text) {
        const m = /^(\d{1,4})x(\d{1,4})$/.exec(text || '');
        return m && +m[1] > 0 && +m[2] > 0 ? [+m[1], +m[2]] : null;
    }
    function hashCamera() {
        return new URLSearchParams(location.hash.slice(1)).get('camera');
    }

    const fixedSize = parseSize(query.get('size'));
    if (fixedSize) document.body.classList.add('fixed');
    let sizeNote = '';
    // The canvas's drawing size: ?size= or the window's. Once the module has its WebGL2 context
    // (gl), held within what the browser draws (its largest viewport and renderbuffer, and the
    // drawing buffer it actually gave), so that the picture, the inspector and the screenshot
    // all have the canvas's size.
    function resize(gl) {
        let w, h;
        if (fixedSize) {
            [w, h] = fixedSize;
        } else {
            const dpr = window.devicePixelRatio || 1;
            w = Math.max(1, Math.round(window.innerWidth * dpr));
            h = Math.max(1, Math.round(window.innerHeight * dpr));
        }
        const wanted = [w, h];
        if (gl) {
            const dims = gl.getParameter(gl.MAX_VIEWPORT_DIMS), most = gl.getParameter(gl.MAX_RENDERBUFFER_SIZE);
            w = Math.min(w, dims[0], most);
            h = Math.min(h, dims[1], most);
            canvas.width = w;
            canvas.height = h;
            w = gl.drawingBufferWidth;
            h = gl.drawingBufferHeight;
        }
        canvas.width = w;
        canvas.height = h;
        canvas.style.width = (fixedSize ? w : window.innerWidth) + 'px';
        canvas.style.height = (fixedSize ? h : window.innerHeight) + 'px';
        sizeNote = fixedSize && (w !== wanted[0] || h !== wanted[1])
            ? `size ${wanted.join('x')} is more than this browser draws: ${w}x${h}` : '';
        if (M) M._page_resize(w, h);
    }

    function pose() {
        const p = M._page_pose() / 8;
        return Array.from(M.HEAPF64.subarray(p, p + 5));
    }
    function setPose(v) { M._page_set_pose(v[0], v[1], v[2], v[3], v[4]); }
    function poseText(v) { return v.map(x => +x.toFixed(3)).join(','); }

    function applySettings() {
        M._page_settings(settings.mode, settings.luxel, settings.wire, settings.vis, settings.fog, settings.noSky,
                         settings.exposure);
    }

    // Maps are written into the in-memory file system's /maps (what came with them too: WADs,
    // lights.rad) and opened by their name, so that errors name them as the command line does
    // when run beside them. RMF, .map and BSP are compiled there first by pmfc, in this process.
    // The game's files dropped with a map make /maps its game directory, as `--game` (pmfc's and
    // the viewer's): a dropped folder is the game directory, its files kept at their paths below
    // it; a plain file stays at its root (paks: pak0.pak, pak1.pak ..., a later one over an
    // earlier one; lights.rad; WADs) and one of a kind the games keep in a folder is seen there
    // too (GAME_FOLDERS), over the paks' own.
    const SOURCE = /\.(rmf|map|bsp)$/i;
    const SKY_PICTURE = /(rt|up|ft|lf|dn|bk)\.(tga|bmp)$/i;
    const GAME_FOLDERS = {
        pak: [], mdl: ['progs', 'models'], spr: ['progs', 'sprites'], lmp: ['gfx'], pcx: ['pics'], wal: ['textures'],
        tga: ['textures'], bmp: ['textures'], png: ['textures'], jpg: ['textures'], jpeg: ['textures'], ptf: ['textures'],
    };
    const gameFolders = name => SKY_PICTURE.test(name) ? ['gfx/env']
        : name.toLowerCase() === 'materials.txt' ? ['sound']
        : GAME_FOLDERS[(name.match(/\.([^.]*)$/) || [])[1]?.toLowerCase()];
    let compiling = null, pmfcLast = '', gameDir = '';
    // the lines pmfc and the viewer warned while the map opened, shown under its name
    let warnings = [], statusHead = [];
    const WARNINGS_SHOWN = 8;

    function openPath(name, fgds) {
        opened = false;
        const rc = M.ccall('page_open', 'number', ['string', 'string', 'string'], [name, gameDir, fgds.join('\n')]);
        if (rc !== 0) {
            fail(M.UTF8ToString(M._page_error()));
            return false;
        }
        applySettings();
        const asked = [hashCamera(), query.get('camera')].filter(t => t);
        const start = asked.map(parsePose).find(v => v);
        if (start) setPose(start);
        opened = true;
        const notes = [sizeNote];
        if (asked.length && !start)
            notes.push(`camera=${asked[0]}: not a camera (X,Y,Z,YAW,PITCH, numbers within ±1e15): the start camera instead`);
        statusHead = [name + (threaded ? ' (streaming on worker threads)' : '')].concat(notes.filter(n => n));
        sayOpened();
        return true;
    }

    // the open map's name and notes, then its warnings (the first WARNINGS_SHOWN: the console has all)
    function sayOpened() {
        const more = warnings.length - WARNINGS_SHOWN;
        say(statusHead.concat(warnings.slice(0, WARNINGS_SHOWN),
                              more > 0 ? [`... and ${more} more warnings (the browser's console has them)`] : []).join('\n'));
    }

    // a file name as pmfc's argument: one starting with '-' is not an option (as the desktop passes it)
    const argument = name => (name.startsWith('-') ? './' : '') + name;

    // pmfc's arguments beside the map's: --wad each WAD, --fgd each entity definition, --rad, --game
    function compileThenOpen(name, given) {
        const out = name.replace(/\.[^.]*$/, '') + '.pmf';
        const args = [argument(name), '-o', argument(out)].concat(...given.wads.map(w => ['--wad', argument(w)]),
                                                                  ...given.fgds.map(f => ['--fgd', argument(f)]),
                                                                  given.rad ? ['--rad', argument(given.rad)] : [],
                                                                  gameDir ? ['--game', gameDir] : []).join('\n');
        compiling = { name, out, fgds: given.fgds };
        pmfcLast = '';
        say('compiling ' + name + ' with pmfc' + (threaded ? ' on a worker thread' : '') + ' ...');
        // two frames: the status is on the screen before a compile without threads holds the page
        requestAnimationFrame(() => requestAnimationFrame(() => {
            if (M.ccall('page_compile_start', 'number', ['string'], [args]) !== 0) {
                compiling = null;
                fail(name + ': cannot start pmfc');
            }
        }));
    }

    // pmfc's lines: progress while it compiles, and its last one as the error when it fails
    function onPrintErr(text) {
        console.warn(text);
        // what pmfc's progress bar leaves on the line ("\r", "ESC[K") goes
        text = text.split('\r').pop().replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
        if (/^(pmfc|pmfview): warning: /.test(text)) {
            warnings.push(text.replace(/^pmfview: /, '').trim());
            if (opened) sayOpened();
        }
        if (compiling && text.trim()) {
            pmfcLast = text.replace(/^pmfc: /, '').trim();
            say('compiling ' + compiling.name + ': ' + text.trim());
        }
    }

    function pollCompile() {
        const rc = M._page_compile_poll();
        if (rc < 0) return;
        const c = compiling;
        compiling = null;
        if (rc === 0) openPath(c.out, c.fgds);
        else fail(pmfcLast || c.name + ': pmfc failed (exit ' + rc + ')');
    }

    function openMapFiles(files) {
        if (compiling) {
            say('a compile is running: wait for it');
            return;
        }
        announced = false;
        delete root.dataset.pmfview;
        M._page_close();
        opened = false;
        warnings = [];
        try { M.FS.mkdir('/maps'); } catch (e) { /* there already */ }
        // a folder's files first: a plain file's place in a game folder does not replace the folder's file there
        const plain = files.filter(f => !f.inFolder), inFolders = files.filter(f => f.inFolder);
        try {
            emptyFolder('/maps');
            for (const f of inFolders.concat(plain))
                writeDropped(f);
        } catch (e) {
            fail(files.map(f => f.path).join(', ') + ': cannot be written in the page: ' + (e.message || e));
            return;
        }
        M.FS.chdir('/maps');
        gameDir = inFolders.length || plain.some(f => gameFolders(f.path)) ? '/maps' : '';
        // the map: a .pmf, else a source, among the plain files, else in the folders
        const pick = list => list.find(f => /\.pmf$/i.test(f.path)) || list.find(f => SOURCE.test(f.path));
        const map = pick(plain) || pick(inFolders) || files[0];
        const fgds = definitions(plain, inFolders, map);
        if (SOURCE.test(map.path))
            compileThenOpen(map.path, { wads: plain.filter(f => /\.wad$/i.test(f.path)).map(f => f.path), fgds,
                                        rad: radFile(plain, map) });
        else
            openPath(map.path, fgds);
    }

    // The entity definitions passed as --fgd (to pmfc and the viewer), as the desktop's: the FGDs
    // dropped as plain files; else, where the map names its own (TrenchBroom's _tb_def), none:
    // pmfc finds that one as written, in the game directory or beside the map; else the FGDs of
    // the dropped folder, in their paths' order.
    const FGD = /\.fgd$/i;
    function definitions(plain, inFolders, map) {
        const given = plain.filter(f => FGD.test(f.path)).map(f => f.path);
        if (given.length) return given;
        if (SOURCE.test(map.path) && /"_tb_def"/i.test(new TextDecoder('latin1').decode(map.bytes))) return [];
        return inFolders.filter(f => FGD.test(f.path)).map(f => f.path).sort();
    }

    // --rad: a plain .rad file other than those pmfc reads by their names (lights.rad, the map's
    // own MAPNAME.rad beside it), as the desktop's --rad FILE; null for none
    function radFile(plain, map) {
        const own = ['lights.rad', map.path.split('/').pop().replace(/\.[^.]*$/, '') + '.rad'];
        const rad = plain.find(f => /\.rad$/i.test(f.path) && !own.includes(f.path));
        return rad ? rad.path : null;
    }

    // what an earlier drop left, its folders too
    function emptyFolder(dir) {
        for (const old of M.FS.readdir(dir)) {
            if (old === '.' || old === '..') continue;
            const at = dir + '/' + old;
            if (M.FS.isDir(M.FS.lstat(at).mode)) {
                emptyFolder(at);
                M.FS.rmdir(at);
            } else {
                M.FS.unlink(at);
            }
        }
    }

    // the folders of a path under /maps, made as needed
    function makeFolders(path) {
        const parts = path.split('/').slice(0, -1);
        for (let i = 1; i <= parts.length; i++)
            try { M.FS.mkdir('/maps/' + parts.slice(0, i).join('/')); } catch (e) { /* there already */ }
    }

    // a dropped file in /maps at its path; a plain one of a game kind also in its game folders
    function writeDropped(f) {
        makeFolders(f.path);
        M.FS.writeFile('/maps/' + f.path, f.bytes);
        if (f.inFolder) return;
        for (const folder of gameFolders(f.path) || []) {
            const at = folder + '/' + f.path;
            makeFolders(at);
            try { M.FS.symlink('/maps/' + f.path, '/maps/' + at); } catch (e) { /* a folder's file is there */ }
        }
    }

    // a name the in-memory file system takes as one file: no folder separators, no control bytes
    // (the page's pmfc command line is one argument a line); "", "." and ".." are no file at all
    const safeName = name => {
        const clean = name.replace(/[\/\\\x00-\x1f\x7f]/g, '_');
        return clean === '.' || clean === '..' ? '' : clean;
    };
    // a dropped file's place in the game directory: below its dropped folder (the browser's
    // relative path without the folder's own name) with each part a safe name, else its name;
    // null for a part that is no name
    function droppedPath(name, relative) {
        const parts = relative.split('/').filter(p => p !== '');
        if (parts.length < 2) return { path: safeName(name) || 'map.pmf', inFolder: false };
        const safe = parts.slice(1).map(safeName);
        return safe.every(p => p) ? { path: safe.join('/'), inFolder: true } : null;
    }

    async function openUrl(url) {
        const name = safeName(url.split('?')[0].split('/').pop());
        if (!name) {
            fail(url + ': not a file');
            return;
        }
        say('fetching ' + url + ' ...');
        let bytes;
        try {
            const response = await fetch(new URL(url, location.href));
            if (!response.ok) throw new Error('HTTP ' + response.status);
            bytes = new Uint8Array(await response.arrayBuffer());
        } catch (e) {
            fail(url + ': cannot fetch: ' + e.message);
            return;
        }
        openMapFiles([{ path: name, inFolder: false, bytes }]);
    }

    // picked or dropped files: [{ file, relative }], relative the path the browser gives a file of
    // a folder ("id1/gfx/env/skyrt.tga": webkitRelativePath, a dropped entry's fullPath)
    async function openFiles(picked) {
        const files = [];
        for (const { file, relative } of picked) {
            const place = droppedPath(file.name, relative || file.webkitRelativePath || '');
            if (place) files.push({ ...place, bytes: new Uint8Array(await file.arrayBuffer()) });
        }
        if (files.length) openMapFiles(files);
    }

    // a dropped folder's files, through the browser's entries (a folder's File holds no bytes)
    async function entryFiles(entry, out) {
        if (entry.isFile) {
            out.push({ file: await new Promise((ok, no) => entry.file(ok, no)), relative: entry.fullPath });
        } else if (entry.isDirectory) {
            const reader = entry.createReader();
            for (let batch; (batch = await new Promise((ok, no) => reader.readEntries(ok, no))).length;)
                for (const e of batch) await entryFiles(e, out);
        }
        return out;
    }
    async function openDropped(transfer) {
        // the entries are taken while the drop event lasts
        const entries = Array.from(transfer.items || []).map(i => i.webkitGetAsEntry && i.webkitGetAsEntry());
        if (!entries.length || !entries.every(e => e)) {
            openFiles(Array.from(transfer.files).map(file => ({ file })));
            return;
        }
        const picked = [];
        try {
            for (const e of entries) await entryFiles(e, picked);
        } catch (e) {
            fail('the dropped folder cannot be read: ' + (e.message || e));
            return;
        }
        openFiles(picked);
    }

    function frame(now) {
        requestAnimationFrame(frame);
        const dt = lastFrame ? Math.min((now - lastFrame) / 1000, 0.25) : 0;
        lastFrame = now;
        if (compiling) pollCompile();
        if (!opened) return;
        const k = c => keys.has(c) ? 1 : 0;
        const v = speed * (keys.has('ShiftLeft') || keys.has('ShiftRight') ? 4 : 1)
                * (keys.has('ControlLeft') || keys.has('ControlRight') ? 0.1 : 1) * dt;
        const forward = (k('KeyW') - k('KeyS')) * v + touchMove[1] * 0.05 * speed / BASE_SPEED;
        const right = (k('KeyD') - k('KeyA')) * v + touchMove[0] * 0.05 * speed / BASE_SPEED;
        const up = (Math.max(k('Space'), k('KeyE')) - Math.max(k('KeyC'), k('KeyQ'))) * v;
        if (forward || right || up || look[0] || look[1])
            M._page_fly(forward, right, up, look[0], look[1]);
        look = [0, 0];
        touchMove = [0, 0];
        // the upload budget as the desktop's (a quarter of the last frame, 0.5 to 4 ms); without
        // threads the decoding happens in it too, so it gets a little more
        const budget = Math.min(Math.max(dt * 250, 0.5), 4) + (threaded ? 0 : 8);
        const result = M._page_frame(budget, animating ? (now - animationStart) / 1000 : 0);
        if (result === 1) announce('ready');
        else if (result === 2) fail(M.UTF8ToString(M._page_error()));
        if (now - lastHash > HASH_INTERVAL_MS) {
            lastHash = now;
            const text = poseText(pose());
            if (text !== lastHashText) {
                lastHashText = text;
                history.replaceState(null, '', location.pathname + location.search + '#camera=' + text);
            }
            hud.textContent = M.UTF8ToString(M._page_stats()) + '\nspeed ' + speed.toFixed(1) + ' m/s, mode '
                + ['full', 'lightmap', 'fullbright', 'density'][settings.mode] + ', exposure ' + settings.exposure.toFixed(2);
        }
    }

    const MODE_KEYS = { F2: 0, F3: 1, F4: 2, KeyB: 3 };
    function inspectAt(x, y) {
        if (!M || !opened) return;
        inspector.dataset.json = M.ccall('page_inspect', 'string', ['number', 'number'], [Math.floor(x), Math.floor(y)]);
        inspector.textContent = M.UTF8ToString(M._page_inspected_text());
        inspector.hidden = false;
        inspectClicked = true;
    }
    function onCanvasClick(e) {
        if (keys.has('KeyI')) {
            const locked = document.pointerLockElement === canvas;
            const r = canvas.getBoundingClientRect();
            inspectAt(locked ? canvas.width / 2 : (e.clientX - r.left) * canvas.width / r.width,
                      locked ? canvas.height / 2 : (e.clientY - r.top) * canvas.height / r.height);
        } else if (!document.pointerLockElement) {
            canvas.requestPointerLock();
        }
    }

    function onKey(e, down) {
        if (e.target instanceof HTMLInputElement) return;
        if (!down) {
            keys.delete(e.code);
            if (e.code === 'KeyI' && !inspectClicked) inspector.hidden = true;
            return;
        }
        if (e.code === 'KeyI' && !e.repeat) inspectClicked = false;
        keys.add(e.code);
        let handled = true;
        if (e.code in MODE_KEYS) settings.mode = MODE_KEYS[e.code];
        else if (e.code === 'F5') { settings.wire ^= 1; if (settings.wire) say('wireframe: WebGL2 has no line polygon mode; not drawn'); }
        else if (e.code === 'F6') settings.luxel ^= 1;
        else if (e.code === 'F8') settings.vis = (settings.vis + 1) % 3;
        else if (e.code === 'F9') settings.noSky ^= 1;
        else if (e.code === 'F10') settings.fog ^= 1;
        else if (e.code === 'BracketRight') settings.exposure *= 1.25;
        else if (e.code === 'BracketLeft') settings.exposure /= 1.25;
        else if (e.code === 'Backslash') settings.exposure = 1;
        else if (e.code === 'KeyR' || e.code === 'Home') M._page_reset_pose();
        else if (e.code === 'KeyM') { if (document.pointerLockElement) document.exitPointerLock(); else canvas.requestPointerLock(); }
        else if (e.code === 'F12') screenshot();
        else if (e.code === 'KeyT') { animating = !animating; animationStart = performance.now(); }
        else handled = e.code.startsWith('F') && e.code.length <= 3 ? false : !!e.code.match(/^(Key[WASDQEC]|Space)$/);
        if (handled) {
            e.preventDefault();
            if (M && opened) applySettings();
        }
    }

    function screenshot() {
        canvas.toBlob(blob => {
            const a = document.createElement('a');
            a.href = URL.createObjectURL(blob);
            a.download = 'pmfview-' + new Date().toISOString().replace(/[:.]/g, '-') + '.png';
            a.click();
            setTimeout(() => URL.revokeObjectURL(a.href), 1000);
        }, 'image/png');
    }

    function wireInput() {
        window.addEventListener('keydown', e => onKey(e, true));
        window.addEventListener('keyup', e => onKey(e, false));
        window.addEventListener('blur', () => keys.clear());
        canvas.addEventListener('click', onCanvasClick);
        canvas.addEventListener('contextmenu', e => e.preventDefault());
        window.addEventListener('mousemove', e => {
            if (document.pointerLockElement === canvas || (e.buttons & 2)) {
                look[0] -= e.movementX * LOOK_DEGREES_PER_PIXEL;
                look[1] -= e.movementY * LOOK_DEGREES_PER_PIXEL;
            }
        });
        canvas.addEventListener('wheel', e => {
            speed *= e.deltaY < 0 ? 1.25 : 1 / 1.25;
            e.preventDefault();
        }, { passive: false });
        // touch: one finger looks, two move (their middle dragged up goes forward, sideways strafes)
        let touches = null;
        const middle = list => {
            let x = 0, y = 0;
            for (const t of list) { x += t.clientX; y += t.clientY; }
            return [x / list.length, y / list.length];
        };
        canvas.addEventListener('touchstart', e => { touches = middle(e.touches); e.preventDefault(); }, { passive: false });
        canvas.addEventListener('touchmove', e => {
            const m = middle(e.touches);
            if (touches) {
                const dx = m[0] - touches[0], dy = m[1] - touches[1];
                if (e.touches.length === 1) {
                    look[0] += dx * LOOK_DEGREES_PER_PIXEL * 2;
                    look[1] += dy * LOOK_DEGREES_PER_PIXEL * 2;
                } else {
                    touchMove[0] += dx;
                    touchMove[1] -= dy;
                }
            }
            touches = m;
            e.preventDefault();
        }, { passive: false });
        canvas.addEventListener('touchend', e => { touches = e.touches.length ? middle(e.touches) : null; });
        for (const picker of ['picker', 'folder'])
            document.getElementById(picker).addEventListener('change', e => openFiles(Array.from(e.target.files).map(file => ({ file }))));
        document.getElementById('shot').addEventListener('click', screenshot);
        window.addEventListener('dragover', e => { e.preventDefault(); document.body.classList.add('dragging'); });
        window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
        window.addEventListener('drop', e => {
            e.preventDefault();
            document.body.classList.remove('dragging');
            openDropped(e.dataTransfer);
        });
        window.addEventListener('resize', () => resize(canvas.getContext('webgl2')));
        window.addEventListener('hashchange', () => {
            const p = parsePose(hashCamera());
            if (p && M && opened && poseText(p) !== lastHashText) setPose(p);
        });
    }

    // For the tests and the console: the camera, and what the page is in.
    window.pmfview = {
        threaded,
        started: false,              // the module is up: maps can be opened
        pose: () => (M && opened ? pose() : null),
        setPose: v => setPose(v),
        // the canvas's RGBA pixels, top row first, in base64
        pixels: () => {
            const gl = canvas.getContext('webgl2'), w = canvas.width, h = canvas.height;
            const px = new Uint8Array(w * h * 4), out = new Uint8Array(w * h * 4);
            gl.bindFramebuffer(gl.FRAMEBUFFER, null);
            gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
            for (let y = 0; y < h; y++) out.set(px.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4);
            let text = '';
            for (let i = 0; i < out.length; i += 0x8000) text += String.fromCharCode.apply(null, out.subarray(i, i + 0x8000));
            return btoa(text);
        },
    };

    // a fault inside the module (a bug: bad input is reported by page_open / page_frame) stops
    // the page where it stands and says so
    window.addEventListener('error', e => fail('the page stopped: ' + e.message));

    const script = document.createElement('script');
    script.src = threaded ? 'pmfview-mt.js' : 'pmfview.js';
    script.onerror = () => fail(script.src + ': cannot load');
    script.onload = () => {
        createPmfview({ canvas, print: t => console.log(t), printErr: onPrintErr }).then(module => {
            M = module;
            resize(null);
            if (M._page_init() !== 0) {
                fail(M.UTF8ToString(M._page_error()));
                return;
            }
            resize(canvas.getContext('webgl2')); /* the module's context, made by page_init */
            wireInput();
            window.pmfview.started = true;
            requestAnimationFrame(frame);
            const map = query.get('map');
            if (map) openUrl(map);
        }, e => fail('the page cannot start: ' + e));
    };
    document.head.appendChild(script);
})();
