// png.js - decodes the 8-bit, non-interlaced RGB / RGBA PNGs `pmfview shot` writes, to RGBA.
'use strict';
const zlib = require('zlib');

function decodePng(buf) {
    if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
    let pos = 8, width = 0, height = 0, channels = 0;
    const idat = [];
    while (pos < buf.length) {
        const len = buf.readUInt32BE(pos), type = buf.toString('latin1', pos + 4, pos + 8);
        const data = buf.subarray(pos + 8, pos + 8 + len);
        if (type === 'IHDR') {
            width = data.readUInt32BE(0);
            height = data.readUInt32BE(4);
            const depth = data[8], colour = data[9], interlace = data[12];
            if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace) throw new Error('unsupported PNG form');
            channels = colour === 6 ? 4 : 3;
        } else if (type === 'IDAT') {
            idat.push(data);
        }
        pos += 12 + len;
    }
    const raw = zlib.inflateSync(Buffer.concat(idat));
    const stride = width * channels, out = Buffer.alloc(width * height * 4);
    let prev = Buffer.alloc(stride);
    for (let y = 0; y < height; y++) {
        const filter = raw[y * (stride + 1)];
        const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
        for (let i = 0; i < stride; i++) {
            const a = i >= channels ? line[i - channels] : 0, b = prev[i], c = i >= channels ? prev[i - channels] : 0;
            let p = 0;
            if (filter === 1) p = a;
            else if (filter === 2) p = b;
            else if (filter === 3) p = (a + b) >> 1;
            else if (filter === 4) {
                const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
                p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            }
            line[i] = (line[i] + p) & 255;
        }
        for (let x = 0; x < width; x++)
            for (let k = 0; k < 4; k++)
                out[(y * width + x) * 4 + k] = k < channels ? line[x * channels + k] : 255;
        prev = line;
    }
    return { width, height, rgba: out };
}

module.exports = { decodePng };
