#!/usr/bin/env python3
"""e4fz.py: the fuzz targets' input container (tests/fuzz/fuzz.h).

  e4fz.py pack IMAGE OUT [--jnl JOURNAL] [--flags N] [--op A,B,C] [--prefix HEX]
      IMAGE (raw or .gz) as an E4FZ input: its size, and its non-zero
      1 KiB units as chunks (zero stretches are not stored); JOURNAL (raw or
      .gz) as the second device; --prefix bytes go before the container
      (fuzz_debugfs's 12 command bytes).
  e4fz.py unpack IN OUT [--jnl JOUT] [--skip N]
      An input (after N prefix bytes) back into a sparse image file, and
      its second device into JOUT: run the tools on what a target found.
  e4fz.py corpus SHARED_CORPUS OUTDIR [MAX_IMAGE_BYTES]
      The seeds of fuzz_read, fuzz_journal and fuzz_debugfs (OUTDIR/read,
      journal, debugfs) from every image of the shared corpus (manifest.tsv)
      whose uncompressed size is at most MAX_IMAGE_BYTES (default 64 MiB)
      and whose non-zero part packs into at most 1 MiB, with its external
      journal; fuzz_debugfs's three commands picked from the image's name.
      fuzz_mkfs's seeds (OUTDIR/mkfs) from mkfs/cases.tsv.
  e4fz.py mkfs-seed OUT CONF OPTIONS [SIZE]
      A fuzz_mkfs input: the configuration file CONF ('-' for none), then
      e4mkfs OPTIONS (one shell-quoted string) and the size argument.
"""
import gzip
import shlex
import struct
import sys

UNIT = 1024


def read_image(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        return f.read()


def chunks(data, high=0):
    """(unit | high, bytes) for each run of non-zero units; a zero unit
    between two runs is kept in (a chunk header costs 8 bytes)."""
    n = (len(data) + UNIT - 1) // UNIT
    zero = bytes(UNIT)
    nz = [data[i * UNIT:(i + 1) * UNIT].rstrip(b'\0') != b'' for i in range(n)]
    out, i = [], 0
    while i < n:
        if not nz[i]:
            i += 1
            continue
        j = i
        while j < n and (nz[j] or (j + 1 < n and nz[j + 1])):
            j += 1
        out.append(struct.pack('<II', i | high, (j - i) * UNIT) +
                   data[i * UNIT:j * UNIT])
        i = j
    return out


def pack(argv):
    image, out = argv[0], argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    data = read_image(image)
    flags = int(opts.get('--flags', '0'), 0)
    op = [int(x, 0) for x in opts.get('--op', '0,0,0').split(',')]
    body = b'E4FZ' + bytes([flags] + op) + struct.pack('<Q', len(data))
    body += b''.join(chunks(data))
    if '--jnl' in opts:
        jdata = read_image(opts['--jnl'])
        body += b''.join(chunks(jdata, 1 << 31))
        # the device's end, so that its size is kept
        body += struct.pack('<II', (len(jdata) // UNIT) | 1 << 31, 0)
    prefix = bytes.fromhex(opts.get('--prefix', ''))
    with open(out, 'wb') as f:
        f.write(prefix + body)


def unpack(argv):
    src, out = argv[0], argv[1]
    opts = dict(zip(argv[2::2], argv[3::2]))
    with open(src, 'rb') as f:
        data = f.read()[int(opts.get('--skip', '0')):]
    if data[:4] != b'E4FZ':
        with open(out, 'wb') as f:
            f.write(data)
        return
    size = struct.unpack('<Q', data[8:16])[0]
    files = {0: open(out, 'wb')}
    files[0].truncate(min(size, 1 << 44))
    if '--jnl' in opts:
        files[1] = open(opts['--jnl'], 'wb')
    pos = 16
    while pos + 8 <= len(data):
        unit, n = struct.unpack('<II', data[pos:pos + 8])
        pos += 8
        piece = data[pos:pos + n]
        pos += n
        f = files.get(unit >> 31)
        if f is None:
            continue
        off = (unit & 0x7FFFFFFF) * UNIT
        if f is files[0] and off + len(piece) > size:
            piece = piece[:max(0, size - off)]
        if f is not files[0]:
            f.truncate(max(f.seek(0, 2), (off + len(piece) + (1 << 20) - 1) >> 20 << 20))
        f.seek(off)
        f.write(piece)
    for f in files.values():
        f.close()


def parse_size(v):
    """"16M" -> bytes."""
    mult = {'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40}
    if v and v[-1].lower() in mult:
        return int(v[:-1]) * mult[v[-1].lower()]
    return int(v)


def mkfs_seed(argv):
    out, conf, options = argv[0], argv[1], argv[2]
    size = argv[3] if len(argv) > 3 else ''
    text = b''
    if conf != '-':
        with open(conf, 'rb') as f:
            text = f.read().replace(b'\0', b'')
    records = []
    words = shlex.split(options)
    i = 0
    while i < len(words):
        w = words[i]
        if len(w) >= 2 and w[0] == '-' and w[1] != '-':
            letter = w[1]
            value = w[2:]
            if letter in 'bCeEgGiIJLmMNoOrRstTU@' and not value and i + 1 < len(words):
                i += 1
                value = words[i]
            if letter == '@':
                value = str(parse_size(value))
            records.append(letter.encode() + value.encode())
        i += 1
    if size and size != '-':
        records.append(b'S' + size.encode())
    with open(out, 'wb') as f:
        f.write(text + b'\0' + b'\0'.join(records))


def gz_size(path):
    """Uncompressed size from a gzip trailer (mod 2^32, as gzip -l)."""
    with open(path, 'rb') as f:
        f.seek(-4, 2)
        return struct.unpack('<I', f.read(4))[0]


def debugfs_prefix(name):
    """Three commands (fuzz_debugfs.c) picked from the name: command,
    option bits, a small inode or block number."""
    import hashlib
    h = hashlib.md5(name.encode()).digest()
    out = b''
    for k in range(3):
        out += bytes([h[k] % 27, h[3 + k], h[6 + k] % 24 + 1, 0])
    return out.hex()


def corpus(argv):
    import csv
    import os
    shared, outdir = argv[0], argv[1]
    limit = int(argv[2]) if len(argv) > 2 else 64 << 20
    for t in ('read', 'journal', 'debugfs', 'mkfs'):
        os.makedirs(os.path.join(outdir, t), exist_ok=True)
    with open(os.path.join(shared, 'manifest.tsv')) as f:
        rows = list(csv.DictReader(f, delimiter='\t'))
    for r in rows:
        img = os.path.join(shared, r['file'])
        if not os.path.exists(img) or gz_size(img) > limit:
            continue
        jnl = [n[4:] for n in (r.get('needs') or '').split(';') if n.startswith('jnl=')]
        args = [img, os.path.join(outdir, 'read', r['name'])]
        if jnl:
            args += ['--jnl', os.path.join(shared, jnl[0])]
        pack(args)
        if os.path.getsize(args[1]) > 1 << 20:
            os.unlink(args[1])
            continue
        with open(args[1], 'rb') as f:
            body = f.read()
        for t in ('journal', 'debugfs'):
            pre = bytes.fromhex(debugfs_prefix(r['name'])) if t == 'debugfs' else b''
            with open(os.path.join(outdir, t, r['name']), 'wb') as f:
                f.write(pre + body)
    with open(os.path.join(shared, 'mkfs', 'cases.tsv')) as f:
        for r in csv.DictReader(f, delimiter='\t'):
            conf = os.path.join(shared, 'mkfs', r['config']) if r['config'] not in ('', '-') else '-'
            size = r['size_arg'] if r['size_arg'] not in ('', '-') else ''
            opts = r['mke2fs_opts']
            if r['file_size'] not in ('', '-'):
                opts += ' -@ ' + r['file_size']
            mkfs_seed([os.path.join(outdir, 'mkfs', r['name']), conf, opts, size])


if __name__ == '__main__':
    cmds = {'pack': pack, 'unpack': unpack, 'mkfs-seed': mkfs_seed, 'corpus': corpus}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        sys.exit(2)
    cmds[sys.argv[1]](sys.argv[2:])
