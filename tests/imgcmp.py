#!/usr/bin/env python3
"""imgcmp.py: compare two filesystem images byte for byte.

    imgcmp.py A B [--sb-skip NAME,...] [--skip OFFSET:LEN]...

Every byte of A and B must be equal, except:
  - the primary superblock fields named with --sb-skip (the ext4 names
    listed in SB_FIELDS below; the fields a tool sets from the clock, from
    its I/O counters or at random);
  - the byte ranges given with --skip (OFFSET and LEN in bytes, decimal or
    0x hex), for a region the caller knows differs (each test says why).
Prints one line per difference, grouped: "superblock s_NAME" (or
"superblock +0xOFF" for a field not in the table) and "block N (K bytes)"
in A's block size; at most 20 lines, then a count.  Exit status: 0 equal,
1 different, 2 usage or I/O error.
"""
import argparse
import errno
import os
import struct
import sys

SB = 1024
# name: (offset in the superblock, size); format doc section 2
SB_FIELDS = {
    's_free_blocks_count_lo': (0x0C, 4), 's_free_inodes_count': (0x10, 4),
    's_mtime': (0x2C, 4), 's_wtime': (0x30, 4), 's_mnt_count': (0x34, 2),
    's_state': (0x3A, 2), 's_lastcheck': (0x40, 4),
    's_feature_compat': (0x5C, 4), 's_feature_incompat': (0x60, 4),
    's_feature_ro_compat': (0x64, 4), 's_last_orphan': (0xE8, 4),
    's_hash_seed': (0xEC, 16), 's_free_blocks_count_hi': (0x158, 4),
    's_kbytes_written': (0x178, 8), 's_error_count': (0x194, 4),
    's_first_error_time': (0x198, 4), 's_last_error_time': (0x1CC, 4),
    's_wtime_hi': (0x274, 1), 's_mtime_hi': (0x275, 1), 's_mkfs_time_hi': (0x276, 1),
    's_lastcheck_hi': (0x277, 1), 's_first_error_time_hi': (0x278, 1),
    's_last_error_time_hi': (0x279, 1), 's_checksum': (0x3FC, 4),
}
CHUNK = 1 << 20


def field_at(off):
    for name, (o, n) in SB_FIELDS.items():
        if o <= off < o + n:
            return name
    return '+0x%x' % off


def extents(f, size):
    """The data ranges of f (SEEK_DATA / SEEK_HOLE; all of it if the
    filesystem cannot say)."""
    out = []
    pos = 0
    try:
        while pos < size:
            try:
                d = os.lseek(f.fileno(), pos, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:
                    break
                raise
            h = os.lseek(f.fileno(), d, os.SEEK_HOLE)
            out.append((d, min(h, size)))
            pos = h
    except (OSError, AttributeError):
        return [(0, size)]
    return out


def data_ranges(fa, fb, size):
    """The union of both files' data ranges, merged, in order."""
    r = sorted(extents(fa, size) + extents(fb, size))
    out = []
    for s, e in r:
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def num(s):
    return int(s, 0)


def main():
    ap = argparse.ArgumentParser(description='compare two images byte for byte')
    ap.add_argument('a')
    ap.add_argument('b')
    ap.add_argument('--sb-skip', default='')
    ap.add_argument('--skip', action='append', default=[])
    args = ap.parse_args()
    skip = []
    for name in filter(None, args.sb_skip.split(',')):
        if name not in SB_FIELDS:
            print('imgcmp: unknown superblock field %s' % name, file=sys.stderr)
            return 2
        o, n = SB_FIELDS[name]
        skip.append((SB + o, SB + o + n))
    for r in args.skip:
        o, n = r.split(':')
        skip.append((num(o), num(o) + num(n)))
    try:
        fa, fb = open(args.a, 'rb'), open(args.b, 'rb')
        fa.seek(SB + 24)
        bs = 1024 << struct.unpack('<I', fa.read(4))[0]
        if bs > 65536:
            bs = 4096
        fa.seek(0)
    except (OSError, struct.error) as e:
        print('imgcmp: %s' % e, file=sys.stderr)
        return 2
    diffs = {}
    order = []
    size = os.fstat(fa.fileno()).st_size
    if os.fstat(fb.fileno()).st_size != size:
        order.append('sizes differ')
        diffs['sizes differ'] = 0
    # holes in both files read as zeros in both: only the data compared
    for start, end in data_ranges(fa, fb, size):
        pos = start
        fa.seek(pos)
        fb.seek(pos)
        while pos < end:
            n = min(CHUNK, end - pos)
            ca, cb = fa.read(n), fb.read(n)
            if ca != cb:
                for i in range(min(len(ca), len(cb))):
                    if ca[i] == cb[i]:
                        continue
                    off = pos + i
                    if any(s <= off < e for s, e in skip):
                        continue
                    if SB <= off < 2 * SB:
                        key = 'superblock ' + field_at(off - SB)
                    else:
                        key = 'block %d' % (off // bs)
                    if key not in diffs:
                        diffs[key] = 0
                        order.append(key)
                    diffs[key] += 1
            pos += n
    for k in order[:20]:
        print('differs: %s (%d bytes)' % (k, diffs[k]) if diffs[k] else 'differs: ' + k)
    if len(order) > 20:
        print('differs: %d more places' % (len(order) - 20))
    sys.stdout.flush()
    return 1 if order else 0


if __name__ == '__main__':
    sys.exit(main())
