#!/usr/bin/env python3
"""mkfs_hashes.py: e4mkfs's output for a fixed list of option sets, hashed.

    mkfs_hashes.py check  TABLE E4MKFS TMPDIR [JOBS]
    mkfs_hashes.py update TABLE E4MKFS TMPDIR [JOBS]
    mkfs_hashes.py digest IMAGE...

TABLE (tests/mkfs_hashes.tsv) has one row per option set: name, size,
options, digest (tab-separated; '#' lines are comments).  Each set is made
with the fixed UUID, hash seed and clock of tests/t/mkfs_common.bash (-U,
-E hash_seed= merged into the set's single -E list, SOURCE_DATE_EPOCH),
the built-in configuration (MKE2FS_CONFIG and E4MKFS_CONFIG unset), on a
fresh sparse file of the given size in TMPDIR, JOBS sets at a time.

The option sets are the whole matrix: every set of tests/t/mkfs_matrix.sh
and tests/t/mkfs_big.sh, every image of tests/mkmatrix.sh (made by e4mkfs
with the arguments the matrix gives mke2fs, at its size), plus the rows
only the table lists (64 KiB blocks, tiny and revision 0 filesystems).
`check` fails when a source lists a set the table lacks or gives it
other options, so the table cannot fall behind the matrix.

The digest is SHA-256 over every 4 KiB block of the image that is not all
zeros, each preceded by its block number (8 bytes, little-endian), then
the image size (8 bytes): equal digests mean byte-identical images, whether
e4mkfs wrote zeros or left holes, and a 15 TiB image is hashed by reading
only its data (SEEK_DATA/SEEK_HOLE).

`update` rewrites the digests (and adds the sources' new sets).  That must
be rare: the table is how refactors of e4mkfs and of the library under it
prove they changed no byte (issue 13, acceptance 7).  Update only for a
change meant to alter the images, and say in its commit which bytes change
and why.
"""

import concurrent.futures
import errno
import hashlib
import os
import re
import subprocess
import sys
import time

UUID = '01020304-0506-0708-090a-0b0c0d0e0f10'
SEED = '11111111-2222-3333-4444-555555555555'
CLOCK = '1700000000'
CHUNK = 4096
ZERO = bytes(CHUNK)

UPDATE_NOTE = """\
The digests guard e4mkfs's output byte for byte across refactors of
e4mkfs and of libe4 (issue 13, acceptance 7).  Rewrite them only for a
change meant to alter the images, and say in that commit which bytes
change and why; a refactor that needs this has changed e4mkfs's output.
"""


def digest(path):
    """The sparse digest of the image at path (see the module comment)."""
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        pos = 0  # everything before pos is hashed (a multiple of CHUNK)
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
                end = os.lseek(fd, start, os.SEEK_HOLE)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    break  # only a hole is left
                start, end = pos, size  # no SEEK_DATA here: read it all
            off = max(pos, start - start % CHUNK)
            end = min(size, end + (-end) % CHUNK)
            while off < end:
                buf = os.pread(fd, min(1 << 20, end - off), off)
                if not buf:
                    break
                mv = memoryview(buf)
                for i in range(0, len(buf), CHUNK):
                    c = mv[i:i + CHUNK]
                    if c != ZERO[:len(c)]:
                        h.update(((off + i) // CHUNK).to_bytes(8, 'little'))
                        h.update(c)
                off += len(buf)
            pos = max(off, end)
    finally:
        os.close(fd)
    h.update(size.to_bytes(8, 'little'))
    return h.hexdigest()


# ---- the option sets the sources list -----------------------------------
def quoted_block(text, var):
    """The lines of VAR='...' in a shell script."""
    m = re.search(r"^%s='\n(.*?)^'" % var, text, re.S | re.M)
    return m.group(1).splitlines() if m else None


def source_sets(srcdir):
    """{name: (size, options, source)} from the matrix scripts."""
    sets = {}
    for rel, cols in (('tests/t/mkfs_matrix.sh', 4), ('tests/t/mkfs_big.sh', 3)):
        with open(os.path.join(srcdir, rel)) as f:
            lines = quoted_block(f.read(), 'SETS')
        if lines is None:
            raise SystemExit('mkfs_hashes: no SETS in %s' % rel)
        for line in lines:
            p = line.split('|')
            if len(p) >= cols - 1 and p[0]:
                sets[p[0]] = (p[1], ' '.join(p[2].split()), rel)
    rel = 'tests/mkmatrix.sh'
    with open(os.path.join(srcdir, rel)) as f:
        text = f.read()
    size = re.search(r'^SIZE=(\S+)', text, re.M).group(1)
    for line in quoted_block(text, 'MATRIX'):
        p = [x.strip() for x in line.split('|')]
        if len(p) < 2 or not p[0]:
            continue
        opts = p[1]
        if '-b 65536' in opts:
            opts += ' -F'  # as mkmatrix.sh's mke2fs -F: blocks above the page size
        sets['matrix-' + p[0]] = (size, ' '.join(opts.split()), rel)
    return sets


# ---- the table ------------------------------------------------------------
def read_table(path):
    head, rows = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                if not rows:
                    head.append(line)
                continue
            p = line.split('\t')
            if len(p) != 4:
                raise SystemExit('mkfs_hashes: %s: bad row: %s' % (path, line))
            rows.append(p)
    return head, rows


def write_table(path, head, rows):
    with open(path + '.tmp', 'w') as f:
        for line in head:
            f.write(line + '\n')
        for r in rows:
            f.write('\t'.join(r) + '\n')
    os.replace(path + '.tmp', path)


def split_ext(opts):
    """The options with every -E list merged into one, the seed first."""
    args, ext = [], ['hash_seed=' + SEED]
    it = iter(opts.split())
    for a in it:
        if a == '-E':
            ext.append(next(it))
        else:
            args.append(a)
    return args + ['-E', ','.join(ext)]


def run_set(e4mkfs, tmp, name, size, opts):
    """(digest or None, message, seconds)."""
    t0 = time.monotonic()
    img = os.path.join(tmp, name + '.img')
    env = dict(os.environ, SOURCE_DATE_EPOCH=CLOCK, LC_ALL='C')
    env.pop('MKE2FS_CONFIG', None)
    env.pop('E4MKFS_CONFIG', None)
    try:
        subprocess.run(['truncate', '-s', size, img], check=True)
        p = subprocess.run([e4mkfs, '-q', '-U', UUID] + split_ext(opts) + [img],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=600)
        if p.returncode != 0:
            out = (p.stdout + p.stderr).strip().replace('\n', ' | ')
            return None, 'e4mkfs exit %d: %s' % (p.returncode, out[:300]), 0
        return digest(img), '', time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, 'e4mkfs timed out', 0
    finally:
        if os.path.exists(img):
            os.unlink(img)


def main(argv):
    if len(argv) >= 2 and argv[0] == 'digest':
        for p in argv[1:]:
            print('%s  %s' % (digest(p), p))
        return 0
    if len(argv) not in (4, 5) or argv[0] not in ('check', 'update'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    mode, table, e4mkfs, tmp = argv[:4]
    jobs = int(argv[4]) if len(argv) == 5 else 2
    srcdir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    head, rows = read_table(table)
    want = source_sets(srcdir)
    problems = [] if rows or mode == 'update' else ['%s lists no option set' % table]
    byname = {r[0]: r for r in rows}
    for name, (size, opts, src) in want.items():
        r = byname.get(name)
        if r is None:
            if mode == 'update':
                rows.append([name, size, opts, '-'])
            else:
                problems.append('%s (%s): not in the table' % (name, src))
        elif (r[1], r[2]) != (size, opts):
            if mode == 'update':
                r[1], r[2], r[3] = size, opts, '-'
            else:
                problems.append('%s: the table has %s %s, %s has %s %s'
                                % (name, r[1], r[2], src, size, opts))
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = [ex.submit(run_set, e4mkfs, tmp, r[0], r[1], r[2]) for r in rows]
        results = [f.result() for f in futs]
    slowest = max(((t, r[0]) for r, (_, _, t) in zip(rows, results)), default=(0, ''))
    bad = 0
    for r, (d, msg, _) in zip(rows, results):
        if d is None:
            problems.append('%s: %s' % (r[0], msg))
        elif d != r[3]:
            if mode == 'update':
                print('mkfs_hashes: %s: %s -> %s' % (r[0], r[3][:12], d[:12]))
                r[3] = d
            else:
                bad += 1
                problems.append('%s (%s %s): digest %s, the table says %s'
                                % (r[0], r[1], r[2], d, r[3]))
    print('mkfs_hashes: %d option sets, %d differ, in %.1f s (slowest %s: %.1f s)'
          % (len(rows), bad, time.monotonic() - t0, slowest[1], slowest[0]))
    if mode == 'update':
        if problems:
            print('\n'.join(problems), file=sys.stderr)
            return 1
        write_table(table, head, rows)
        print(UPDATE_NOTE, end='')
        return 0
    if problems:
        print('\n'.join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
