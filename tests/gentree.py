#!/usr/bin/env python3
# gentree.py: deterministic test-tree generator and tree lister for e4kit's
# integration tests.
#
#   gentree.py gen DEST [--seed N] [--no-special] [--bigdir N] [--rich]
#       Populate DEST (an existing, empty directory, normally a fresh
#       filesystem's root) with the fixed test tree.  Every write, chown,
#       chmod, setxattr and utime is checked: any failure aborts with exit 1.
#       --bigdir N: entries in the large directory (default 20000).
#       --rich: also what a root filesystem image holds (e4mkfs -d tests):
#       attributes of the trusted., security. (selinux, capability) and
#       system. (POSIX ACLs, access and default, set as raw values)
#       namespaces, UTF-8 and odd-byte names (newline, 0x01, 0xff,
#       backslash, '=', a 255-byte UTF-8 name), a hard link group spread
#       over three directories, a socket (with special files), and
#       nanosecond times.  Its random choices come from a second
#       generator (seed + 1), so the base tree is the same with or
#       without it.  The parameters are printed on standard error.
#       --spread N: N more small files (0 to 3,000 bytes; every 10th a
#       symlink) in directories of 200 under spread/, from a third
#       generator (seed + 2): a tree of about 50,000 entries is
#       --rich --spread 30000 with the default --bigdir (48,423 entries
#       with 28000).
#   gentree.py list DIR [--no-atime]
#       Print one line per entry below DIR (DIR itself excluded), sorted
#       bytewise by relative path:
#         path TYPE mode=OOOOO uid=N gid=N size=N mtime=S atime=S sha256=H
#       TYPE is f, d, l (symlink: sha256 of the target), p, c, b, s.
#       Directories print size=- (the size is a property of the dumping
#       filesystem).  Symlinks print no times (rdump does not restore them).
#
# The tree: small files, tiny files (inline_data candidates), large files of
# random bytes (> 4 MiB), sparse files (holes at start, middle, end), empty
# files and directories, a 30-level deep path, a 20,000-entry directory,
# fast and slow symlinks, hard links, user.* xattrs (some large enough to
# leave the inode), assorted modes, numeric owners (including > 16 bits) and
# fixed atimes/mtimes.  Special files (fifo, devices) unless --no-special.

import hashlib
import os
import random
import stat
import sys

SEED_DEFAULT = 20240611
BIGDIR_ENTRIES = 20000
DEEP_LEVELS = 30
NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-.ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OWNERS = [(0, 0), (1000, 1000), (1234, 5678), (65534, 65534),
          (100000, 200000), (3000000000, 7)]
FILE_MODES = [0o644, 0o600, 0o640, 0o400, 0o444, 0o664, 0o755, 0o700,
              0o777, 0o000, 0o4755, 0o2755, 0o1644, 0o6711]
DIR_MODES = [0o755, 0o700, 0o750, 0o711, 0o1777, 0o2775, 0o555]
MIB = 1024 * 1024


class Gen:
    def __init__(self, dest, seed, special, bigdir=BIGDIR_ENTRIES, rich=False,
                 spread=0):
        self.dest = dest
        self.bigdir = bigdir
        self.rich = rich
        self.rng = random.Random(seed)
        self.rng2 = random.Random(seed + 1)
        self.spread = spread
        self.rng3 = random.Random(seed + 2)
        self.special = special
        self.times = []    # (relpath, atime, mtime), applied at the end

    def p(self, rel):
        if isinstance(rel, bytes):
            return os.path.join(os.fsencode(self.dest), rel)
        return os.path.join(self.dest, rel)

    def ts(self):
        # fixed timestamps: mostly 2000..2030, some around the epoch and
        # 2038 edges (pre-1970 and post-2038 need 256-byte inodes; the
        # kernel clamps them on 128-byte inodes, which is fine: both tools
        # read the same image)
        r = self.rng.random()
        if r < 0.05:
            return self.rng.choice([0, 1, 86399, 2147483647, 2147483648,
                                    -86400 * 365, 4102444800])
        return self.rng.randrange(946684800, 1893456000)

    def settimes(self, rel):
        m = self.ts()
        a = m + self.rng.randrange(0, 1000000)
        self.times.append((rel, a, m))

    def owner(self, rel, follow=True):
        uid, gid = self.rng.choice(OWNERS)
        os.chown(self.p(rel), uid, gid, follow_symlinks=follow)

    def mkdir(self, rel, mode=None):
        os.mkdir(self.p(rel))
        self.owner(rel)
        os.chmod(self.p(rel), mode if mode is not None else 0o755)
        self.settimes(rel)

    def data(self, n):
        return self.rng.randbytes(n)

    def file(self, rel, content=b"", mode=None, own=True):
        fd = os.open(self.p(rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(content)
            while view:
                k = os.write(fd, view)
                view = view[k:]
        finally:
            os.close(fd)
        if own:
            self.owner(rel)
        os.chmod(self.p(rel), mode if mode is not None
                 else self.rng.choice(FILE_MODES))
        self.settimes(rel)

    def sparse(self, rel, pieces, size):
        fd = os.open(self.p(rel), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            for off, n in pieces:
                buf = self.data(n)
                if os.pwrite(fd, buf, off) != n:
                    raise OSError("short write on " + rel)
            os.ftruncate(fd, size)
        finally:
            os.close(fd)
        self.owner(rel)
        os.chmod(self.p(rel), 0o644)
        self.settimes(rel)

    def symlink(self, target, rel):
        os.symlink(target, self.p(rel))
        self.owner(rel, follow=False)

    def name(self, lo, hi):
        n = self.rng.randrange(lo, hi + 1)
        return "".join(self.rng.choice(NAME_CHARS) for _ in range(n))

    def xattr(self, rel, name, n):
        val = self.data(n) if n > 40 else self.name(n, n).encode()
        os.setxattr(self.p(rel), name, val)

    def run(self):
        # small files with random content
        self.mkdir("small")
        for i in range(100):
            n = self.rng.choice([1, 100, 1000, 1023, 1024, 1025, 4095, 4096,
                                 4097, 8192, 12345, 20000, 65536, 70000])
            self.file("small/s%03d_%s" % (i, self.name(0, 20)), self.data(n))
        # tiny files: inline_data (<= 60 bytes in i_block, more in the
        # system.data xattr)
        self.mkdir("tiny")
        for i, n in enumerate([0, 1, 2, 3, 10, 30, 59, 60, 61, 80, 100, 120,
                               150, 160, 200]):
            self.file("tiny/t%02d" % i, self.data(n), mode=0o644)
        # large random files (> 4 MiB) and a patterned one
        self.mkdir("large")
        self.file("large/big5m", self.data(5 * MIB + 123), mode=0o644)
        self.file("large/big6m", self.data(6 * MIB - 4097), mode=0o600)
        self.file("large/pattern3m", bytes(range(256)) * (3 * MIB // 256),
                  mode=0o644)
        # sparse files
        self.mkdir("sparse")
        self.sparse("sparse/hole_start", [(1 * MIB + 5, 10000)], 1 * MIB + 10005)
        self.sparse("sparse/hole_middle", [(0, 8192), (3 * MIB, 5000)],
                    3 * MIB + 5000)
        self.sparse("sparse/hole_end", [(0, 5000)], 2 * MIB)
        self.sparse("sparse/all_hole", [], 1 * MIB + 17)
        self.sparse("sparse/many_holes",
                    [(k * 256 * 1024 + 77, 3000) for k in range(0, 40, 3)],
                    12 * MIB)
        self.sparse("sparse/big_sparse", [(0, 4096), (4 * MIB + 17, 70000),
                                          (9 * MIB, 1)], 9 * MIB + 1)
        # empty files and directories
        self.mkdir("empty")
        self.mkdir("empty/dir")
        for i in range(5):
            self.file("empty/e%d" % i, b"")
        # deep path
        rel = "deep"
        self.mkdir(rel)
        for lv in range(1, DEEP_LEVELS + 1):
            rel += "/level%02d_%s" % (lv, self.name(1, 6))
            self.mkdir(rel, self.rng.choice([0o755, 0o750, 0o711]))
        self.file(rel + "/leaf", b"bottom of the deep path\n", mode=0o644)
        # the large (htree) directory: mostly empty files, some with data,
        # some subdirectories and symlinks
        self.mkdir("bigdir")
        for i in range(self.bigdir):
            nm = "%05d%s" % (i, self.name(0, 40))
            r = i % 1000
            if r == 999:
                self.mkdir("bigdir/" + nm)
            elif r == 998:
                self.symlink("../small", "bigdir/" + nm)
            elif r % 50 == 0:
                self.file("bigdir/" + nm, self.data(self.rng.randrange(1, 300)),
                          mode=0o644)
            else:
                self.file("bigdir/" + nm, b"", mode=0o644)
        # a name of maximal length
        self.file("bigdir/" + "L" * 255, b"long name\n", mode=0o644)
        # symlinks
        self.mkdir("links")
        self.file("links/target", b"target file\n", mode=0o644)
        self.symlink("target", "links/fast_rel")
        self.symlink("/etc/passwd", "links/fast_abs")
        self.symlink("x" * 59, "links/fast_59")
        self.symlink("y" * 60, "links/slow_60")
        self.symlink("../" * 20 + "slow/target/path", "links/slow_rel")
        self.symlink("/" + "/".join("component%02d" % k for k in range(60)),
                     "links/slow_long")
        self.symlink("z" * 1000, "links/slow_1000")
        self.symlink("does/not/exist", "links/dangling")
        self.symlink("../deep", "links/to_dir")
        # hard links
        self.mkdir("hard")
        self.file("hard/a", self.data(3000), mode=0o644)
        os.link(self.p("hard/a"), self.p("hard/b"))
        os.link(self.p("hard/a"), self.p("links/hard_a"))
        os.link(self.p("hard/a"), self.p("empty/dir/hard_a"))
        self.file("hard/big", self.data(70000), mode=0o640)
        os.link(self.p("hard/big"), self.p("hard/big2"))
        # extended attributes (user.*)
        self.mkdir("xattr")
        self.file("xattr/small_values", self.data(100), mode=0o644)
        for k in range(4):
            self.xattr("xattr/small_values", "user.k%d" % k, 5 + 7 * k)
        self.file("xattr/to_block", self.data(10), mode=0o644)
        # 600 + 250 bytes: leaves a 256-byte inode for the xattr block; on
        # 1024-byte inodes one of them stays in the inode.  Fits in a
        # 1 KiB xattr block.
        self.xattr("xattr/to_block", "user.big", 600)
        self.xattr("xattr/to_block", "user.medium", 250)
        self.file("xattr/empty_value", b"", mode=0o644)
        os.setxattr(self.p("xattr/empty_value"), "user.empty", b"")
        self.mkdir("xattr/dir")
        self.xattr("xattr", "user.dirattr", 20)
        self.xattr("xattr/dir", "user.dirbig", 300)
        self.xattr("xattr/dir", "user.dirsmall", 8)
        self.file("xattr/tiny", b"tiny+xattr", mode=0o644)
        self.xattr("xattr/tiny", "user.t", 12)
        # two files sharing identical xattrs (the kernel may share a block)
        for nm in ("shared1", "shared2"):
            self.file("xattr/" + nm, b"s", mode=0o644)
            os.setxattr(self.p("xattr/" + nm), "user.same", b"S" * 500)
        # modes and owners
        self.mkdir("modes")
        for m in FILE_MODES:
            for uid, gid in OWNERS[:3]:
                rel = "modes/f%05o_%d" % (m, uid)
                self.file(rel, b"mode %o\n" % m, own=False, mode=0o600)
                os.chown(self.p(rel), uid, gid)
                os.chmod(self.p(rel), m)
        for m in DIR_MODES:
            self.mkdir("modes/d%05o" % m, m)
        for uid, gid in OWNERS:
            rel = "modes/owner_%d_%d" % (uid, gid)
            self.file(rel, b"o", own=False, mode=0o644)
            os.chown(self.p(rel), uid, gid)
        # special files (rdump skips them)
        if self.special:
            self.mkdir("special")
            os.mkfifo(self.p("special/fifo"), 0o644)
            os.mknod(self.p("special/null"), 0o666 | stat.S_IFCHR,
                     os.makedev(1, 3))
            os.mknod(self.p("special/loop9"), 0o660 | stat.S_IFBLK,
                     os.makedev(7, 9))
            os.mknod(self.p("special/bigdev"), 0o600 | stat.S_IFCHR,
                     os.makedev(300, 70000))
            for rel in ("special/fifo", "special/null", "special/loop9",
                        "special/bigdev"):
                self.settimes(rel)
        if self.rich:
            self.run_rich()
        if self.spread:
            self.run_spread()
        # times last, children before parents
        for rel, a, m in sorted(self.times, key=lambda t: os.fsencode(t[0]),
                                reverse=True):
            an = mn = 0
            if self.rich:
                an = self.rng2.randrange(10**9)
                mn = self.rng2.randrange(10**9)
            os.utime(self.p(rel), ns=(a * 10**9 + an, m * 10**9 + mn),
                     follow_symlinks=False)

    def run_spread(self):
        r = self.rng3
        self.mkdir("spread")
        for i in range(self.spread):
            d = "spread/d%04d" % (i // 200)
            if i % 200 == 0:
                self.mkdir(d)
            rel = "%s/f%05d" % (d, i)
            if i % 10 == 9:
                self.symlink("f%05d" % (i - 1), rel)
                continue
            self.file(rel, r.randbytes(r.randrange(0, 3001)), mode=0o644)

    def acl(self, entries):
        # the VFS encoding of a POSIX ACL (version 2; 8-byte entries):
        # entries (tag, perm, id) in the kernel's order
        out = (2).to_bytes(4, "little")
        for tag, perm, ident in entries:
            out += tag.to_bytes(2, "little") + perm.to_bytes(2, "little")
            out += (ident if ident is not None else 0xFFFFFFFF).to_bytes(4, "little")
        return out

    def run_rich(self):
        r = self.rng2
        self.mkdir("rich")
        # attributes of several namespaces
        self.file("rich/ns", self.data(500), mode=0o644)
        os.setxattr(self.p("rich/ns"), "trusted.overlay.x", b"trusted value")
        os.setxattr(self.p("rich/ns"), "security.selinux",
                    b"system_u:object_r:bin_t:s0\0")
        # a VFS_CAP_REVISION_2 capability (cap_net_raw permitted)
        os.setxattr(self.p("rich/ns"), "security.capability",
                    bytes.fromhex("0100000200200000000000000000000000000000"))
        os.setxattr(self.p("rich/ns"), "user.mime_type", b"text/plain")
        self.file("rich/empty_xattrs", b"", mode=0o600)
        os.setxattr(self.p("rich/empty_xattrs"), "user.k", b"v" * 30)
        os.setxattr(self.p("rich/empty_xattrs"), "trusted.k", r.randbytes(200))
        # POSIX ACLs: access (named user and group, a mask), default on a
        # directory and on a subdirectory
        for k in range(3):
            rel = "rich/acl%d" % k
            self.file(rel, self.data(10 + k), mode=0o640)
            uid = [1000, 70000, 3000000000][k]
            os.setxattr(self.p(rel), "system.posix_acl_access", self.acl(
                [(0x01, 6, None), (0x02, r.randrange(8), uid),
                 (0x02, 4, uid + 1), (0x04, 4, None), (0x08, 2, 55 + k),
                 (0x10, 7, None), (0x20, 4, None)]))
        self.mkdir("rich/defacl")
        os.setxattr(self.p("rich/defacl"), "system.posix_acl_default", self.acl(
            [(0x01, 7, None), (0x02, 5, 7), (0x04, 5, None), (0x10, 5, None),
             (0x20, 0, None)]))
        self.mkdir("rich/defacl/sub")
        os.setxattr(self.p("rich/defacl/sub"), "system.posix_acl_access", self.acl(
            [(0x01, 7, None), (0x04, 5, None), (0x08, 7, 100), (0x10, 7, None),
             (0x20, 1, None)]))
        # UTF-8 and odd-byte names
        names = ["caf\u00e9", "\u65e5\u672c\u8a9e.txt", "sp ace", "new\nline",
                 "back\\slash", "eq=ual", "tab\tx", "-dash", "\u00fc" * 127]
        for nm in names:
            self.file("rich/" + nm, self.data(r.randrange(0, 100)), mode=0o644)
        for raw in (b"rich/odd\x01byte", b"rich/latin1\xe9\xff"):
            fd = os.open(self.p(raw), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, raw)
            os.close(fd)
        # a link group over three directories
        self.mkdir("rich/la")
        self.mkdir("rich/lb")
        self.file("rich/la/one", self.data(5000), mode=0o755)
        os.link(self.p("rich/la/one"), self.p("rich/lb/two"))
        os.link(self.p("rich/la/one"), self.p("rich/three"))
        if self.special:
            import socket
            sk = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sk.bind(self.p("special/sock"))
            sk.close()
            self.settimes("special/sock")


def listing(top, atime=True):
    out = []
    topb = os.fsencode(top)
    for root, dirs, files in os.walk(topb):
        for nm in dirs + files:
            full = os.path.join(root, nm)
            rel = os.path.relpath(full, topb)
            st = os.lstat(full)
            m = st.st_mode
            perm = "mode=%05o" % stat.S_IMODE(m)
            own = "uid=%d gid=%d" % (st.st_uid, st.st_gid)
            times = "mtime=%d" % int(st.st_mtime)
            if atime:
                times += " atime=%d" % int(st.st_atime)
            if stat.S_ISLNK(m):
                h = hashlib.sha256(os.readlink(full)).hexdigest()
                line = b"%s l %s %s size=%d sha256=%s" % (
                    rel, perm.encode(), own.encode(), st.st_size, h.encode())
            elif stat.S_ISDIR(m):
                line = b"%s d %s %s size=- %s" % (rel, perm.encode(),
                                                 own.encode(), times.encode())
            elif stat.S_ISREG(m):
                h = hashlib.sha256()
                with open(full, "rb") as f:
                    while True:
                        b = f.read(1 << 20)
                        if not b:
                            break
                        h.update(b)
                line = b"%s f %s %s size=%d %s sha256=%s" % (
                    rel, perm.encode(), own.encode(), st.st_size,
                    times.encode(), h.hexdigest().encode())
            else:
                t = {stat.S_IFIFO: "p", stat.S_IFCHR: "c", stat.S_IFBLK: "b",
                     stat.S_IFSOCK: "s"}.get(stat.S_IFMT(m), "?")
                line = b"%s %s %s %s rdev=%d %s" % (
                    rel, t.encode(), perm.encode(), own.encode(), st.st_rdev,
                    times.encode())
            out.append((rel, line))
    out.sort()
    w = sys.stdout.buffer
    for _, line in out:
        w.write(line.replace(b"\n", b"\\n") + b"\n")


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        seed = SEED_DEFAULT
        special = "--no-special" not in argv
        rich = "--rich" in argv
        spread = 0
        if "--spread" in argv:
            spread = int(argv[argv.index("--spread") + 1])
        bigdir = BIGDIR_ENTRIES
        if "--seed" in argv:
            seed = int(argv[argv.index("--seed") + 1])
        if "--bigdir" in argv:
            bigdir = int(argv[argv.index("--bigdir") + 1])
        if rich or spread:
            sys.stderr.write("gentree: seed=%d bigdir=%d special=%d rich=%d spread=%d\n"
                             % (seed, bigdir, special, rich, spread))
        Gen(argv[2], seed, special, bigdir, rich, spread).run()
        return 0
    if len(argv) >= 3 and argv[1] == "list":
        listing(argv[2], atime="--no-atime" not in argv)
        return 0
    sys.stderr.write("usage: gentree.py gen DEST [--seed N] [--no-special] [--bigdir N] [--rich]\n"
                     "                    [--spread N]\n"
                     "       gentree.py list DIR [--no-atime]\n")
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:
        sys.stderr.write("gentree.py: %s\n" % e)
        sys.exit(1)
