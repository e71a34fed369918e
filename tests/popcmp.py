#!/usr/bin/env python3
# popcmp.py: compare a source tree with the mounted image e4mkfs -d made of
# it (tests/t/mkfs_populate.sh).
#
#   popcmp.py SRC DST [--no-sockets]
#   popcmp.py --copy-reversed SRC DST
#
# --copy-reversed: recreate SRC as DST (a new directory) with every
# directory's entries made in reverse name order (other inode numbers,
# other creation order), hard links, xattrs (ACLs as raw values), owners,
# modes and nanosecond times kept, atimes set to now: the source of a
# rebuild that must give the same bytes.
#
# Every entry below SRC (the root included) must be in DST with the same
# type, permission bits (07777), owner, nanosecond mtime, xattrs (names
# and values, every namespace the kernel shows), link count (non-
# directories); regular files the same size and bytes, and every hole of
# the source (SEEK_HOLE/SEEK_DATA, whole 4 KiB blocks) a hole in DST;
# symlinks the same target; devices the same number; directories the same
# names (DST's root may add lost+found).  Hard link groups (entries sharing
# an inode) must be the same groups.  --no-sockets: SRC's sockets are
# expected missing (tar cannot hold them).  Prints the first differences
# and exits 1, or exits 0.
import os
import stat
import sys

BLK = 4096


def holes(path, size):
    """The source's hole ranges [a, b), block aligned inward."""
    out = []
    fd = os.open(path, os.O_RDONLY)
    try:
        off = 0
        while off < size:
            try:
                h = os.lseek(fd, off, os.SEEK_HOLE)
            except OSError:
                break
            if h >= size:
                break
            try:
                d = os.lseek(fd, h, os.SEEK_DATA)
            except OSError:
                d = size
            a = (h + BLK - 1) // BLK * BLK
            b = d // BLK * BLK if d < size else size
            if b > a:
                out.append((a, b))
            off = d
    finally:
        os.close(fd)
    return out


def is_hole(path, a, b):
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            d = os.lseek(fd, a, os.SEEK_DATA)
        except OSError:
            return True        # no data after a
        return d >= b
    finally:
        os.close(fd)


def content_equal(p, q, size):
    """Equal bytes, read only where either file has data (a 5 GiB sparse
    file costs its data runs, not 5 GiB of zeros)."""
    with open(p, "rb") as f, open(q, "rb") as g:
        runs = sorted(data_runs(f.fileno(), size) + data_runs(g.fileno(), size))
        for a, b in runs:
            f.seek(a)
            g.seek(a)
            while a < b:
                n = min(b - a, 1 << 20)
                if f.read(n) != g.read(n):
                    return False
                a += n
    return True


def xattrs(p):
    out = {}
    for n in os.listxattr(p, follow_symlinks=False):
        out[n] = os.getxattr(p, n, follow_symlinks=False)
    return out


def copy_reversed(src, dst):
    import socket
    seen = {}
    dirs = []

    def one(sp, dp):
        s = os.lstat(sp)
        key = (s.st_dev, s.st_ino)
        if not stat.S_ISDIR(s.st_mode) and s.st_nlink > 1 and key in seen:
            os.link(seen[key], dp)
            return
        seen[key] = dp
        m = s.st_mode
        if stat.S_ISDIR(m):
            os.mkdir(dp)
            for n in sorted(os.listdir(sp), reverse=True):
                one(os.path.join(sp, n), os.path.join(dp, n))
            dirs.append((dp, s))
        elif stat.S_ISREG(m):
            with open(sp, "rb") as f, open(dp, "wb") as g:
                for a, b in data_runs(f.fileno(), s.st_size):
                    f.seek(a)
                    g.seek(a)
                    g.write(f.read(b - a))
                g.truncate(s.st_size)
        elif stat.S_ISLNK(m):
            os.symlink(os.readlink(sp), dp)
        elif stat.S_ISSOCK(m):
            so = socket.socket(socket.AF_UNIX)
            so.bind(dp)
            so.close()
        else:
            os.mknod(dp, m, s.st_rdev)
        if not stat.S_ISDIR(m):
            finish(dp, s, sp)

    def finish(dp, s, sp):
        # owner and mode first: chown drops security.capability
        os.chown(dp, s.st_uid, s.st_gid, follow_symlinks=False)
        if not stat.S_ISLNK(s.st_mode):
            os.chmod(dp, stat.S_IMODE(s.st_mode))
        for n in os.listxattr(sp, follow_symlinks=False):
            os.setxattr(dp, n, os.getxattr(sp, n, follow_symlinks=False),
                        follow_symlinks=False)
        os.utime(dp, ns=(s.st_mtime_ns + 12345, s.st_mtime_ns), follow_symlinks=False)

    one(src, dst)
    for dp, s in dirs:      # children first: their making changed the mtime
        finish(dp, s, dp.replace(dst, src, 1))


def data_runs(fd, size):
    out, off = [], 0
    while off < size:
        try:
            a = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        b = os.lseek(fd, a, os.SEEK_HOLE)
        out.append((a, b))
        off = b
    return out


def main():
    if sys.argv[1] == "--copy-reversed":
        copy_reversed(os.fsencode(sys.argv[2]), os.fsencode(sys.argv[3]))
        return 0
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    no_sockets = "--no-sockets" in sys.argv
    src, dst = os.fsencode(args[0]), os.fsencode(args[1])
    errs = []
    sgroups, dgroups = {}, {}

    def err(rel, msg):
        errs.append("%r: %s" % (rel, msg))

    stack = [b""]
    while stack:
        rel = stack.pop()
        sp = os.path.join(src, rel) if rel else src
        dp = os.path.join(dst, rel) if rel else dst
        s = os.lstat(sp)
        if no_sockets and stat.S_ISSOCK(s.st_mode):
            if os.path.lexists(dp):
                err(rel, "a socket in a tar route")
            continue
        try:
            d = os.lstat(dp)
        except OSError as e:
            err(rel, "missing: %s" % e)
            continue
        if stat.S_IFMT(s.st_mode) != stat.S_IFMT(d.st_mode):
            err(rel, "type %o != %o" % (stat.S_IFMT(s.st_mode), stat.S_IFMT(d.st_mode)))
            continue
        if stat.S_IMODE(s.st_mode) != stat.S_IMODE(d.st_mode):
            err(rel, "mode %o != %o" % (stat.S_IMODE(s.st_mode), stat.S_IMODE(d.st_mode)))
        if (s.st_uid, s.st_gid) != (d.st_uid, d.st_gid):
            err(rel, "owner %d:%d != %d:%d" % (s.st_uid, s.st_gid, d.st_uid, d.st_gid))
        if s.st_mtime_ns != d.st_mtime_ns:
            err(rel, "mtime %d != %d" % (s.st_mtime_ns, d.st_mtime_ns))
        if xattrs(sp) != xattrs(dp):
            err(rel, "xattrs %r != %r" % (sorted(xattrs(sp)), sorted(xattrs(dp))))
        if stat.S_ISDIR(s.st_mode):
            sn = set(os.listdir(sp))
            dn = set(os.listdir(dp))
            if not rel:
                dn.discard(b"lost+found")
            if no_sockets:
                sn = {n for n in sn if not stat.S_ISSOCK(os.lstat(os.path.join(sp, n)).st_mode)}
            if sn != dn:
                err(rel, "names differ: only in source %r, only in image %r" %
                    (sorted(sn - dn)[:5], sorted(dn - sn)[:5]))
            stack.extend(os.path.join(rel, n) if rel else n for n in sn & dn)
            continue
        if s.st_nlink != d.st_nlink:
            err(rel, "nlink %d != %d" % (s.st_nlink, d.st_nlink))
        sgroups.setdefault((s.st_dev, s.st_ino), set()).add(rel)
        dgroups.setdefault((d.st_dev, d.st_ino), set()).add(rel)
        if stat.S_ISREG(s.st_mode):
            if s.st_size != d.st_size:
                err(rel, "size %d != %d" % (s.st_size, d.st_size))
            elif not content_equal(sp, dp, s.st_size):
                err(rel, "content differs")
            else:
                for a, b in holes(sp, s.st_size):
                    if not is_hole(dp, a, b):
                        err(rel, "hole [%d, %d) of the source holds data" % (a, b))
                        break
        elif stat.S_ISLNK(s.st_mode):
            if os.readlink(sp) != os.readlink(dp):
                err(rel, "symlink target differs")
        elif stat.S_ISCHR(s.st_mode) or stat.S_ISBLK(s.st_mode):
            if s.st_rdev != d.st_rdev:
                err(rel, "rdev %x != %x" % (s.st_rdev, d.st_rdev))
    sg = sorted(sorted(g) for g in sgroups.values() if len(g) > 1)
    dg = sorted(sorted(g) for g in dgroups.values() if len(g) > 1)
    if sg != dg:
        errs.append("hard link groups differ: %r vs %r" % (sg[:3], dg[:3]))
    if errs:
        for e in errs[:15]:
            print(e)
        print("%d differences" % len(errs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
