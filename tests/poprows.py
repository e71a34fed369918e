#!/usr/bin/env python3
# poprows.py: the sources of the corpus's -d rows (mkfs/cases.tsv:
# m_rootdir, m_rootdir_acl, m_minrootdir, m_devdir, m_roottar,
# m_rootgnutar, m_rootpaxtar), made for tests/t/mkfs_cases.sh.
#
#   poprows.py KIND DIR
#   poprows.py --listing MNT
#
# The corpus names what each row copies in (its notes column) but not
# the tree itself, so these trees are our own, built from those notes:
#   base   (m_rootdir, m_minrootdir, m_rootgnutar) an empty file, a 32 KiB
#          file, a sparse file with a few bytes at 1 KiB, 512 KiB, 1 MiB,
#          512 MiB and 1 GiB, a 1 GiB + 1 file that is one hole but its
#          last byte, a hard link to it from another directory, a fast and a
#          slow symlink, an empty directory, a sticky directory, a setuid
#          file, owners above 65535;
#   acl    (m_rootdir_acl) small files and directories (inline with
#          inline_data), access and default POSIX ACLs (set by the caller
#          with setfacl: this script only makes the tree, see ACLS below);
#   devdir (m_devdir) a /dev-like tree: character and block devices,
#          fifos, a socket, symlinks into subdirectories;
#   small  (m_roottar: ustar holds no sparse files and no sockets) files,
#          directories, symlinks, a hard link, a fifo, devices;
#   pax    (m_rootpaxtar) small plus user., trusted. and security.
#          attributes.
# --listing: one line per entry below MNT (lost+found left out), sorted by
# path: type, mode, owner, size, link count (non-directories), content
# hash, symlink target, device number, attribute names and value hashes;
# no times and no inode or block numbers (two tools' images of one tree
# list the same).
# Every time is a whole second (ustar and GNU tar keep no nanoseconds)
# and fixed, so the mounted image can be compared with DIR by popcmp.py.
import os
import socket
import stat
import sys

T0 = 1600000000


def wfile(path, data=b"", mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def sparse(path, size, runs):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for off, data in runs:
        os.pwrite(fd, data, off)
    os.ftruncate(fd, size)
    os.close(fd)


def base(d, with_sparse=True):
    wfile(os.path.join(d, "emptyfile"))
    wfile(os.path.join(d, "bigfile"), b"a" * 32768)
    if with_sparse:
        g = 1 << 30
        sparse(os.path.join(d, "sparsefile"), g + 2,
               [(o, b"M\n") for o in (1024, 512 << 10, 1 << 20, 512 << 20, g)])
        sparse(os.path.join(d, "bigzerofile"), g + 1, [(g, b"\0")])
    else:
        sparse(os.path.join(d, "bigzerofile"), 70000, [(69999, b"\0")])
    os.mkdir(os.path.join(d, "emptydir"))
    os.mkdir(os.path.join(d, "dir"))
    wfile(os.path.join(d, "dir", "file"), b"Test me\n")
    os.link(os.path.join(d, "bigzerofile"), os.path.join(d, "dir", "bigzerofile_hardlink"))
    os.symlink("/silly_bs_link", os.path.join(d, "silly_bs_link"))
    os.symlink("x/" * 40 + "end", os.path.join(d, "dir", "slow_link"))
    os.mkdir(os.path.join(d, "tmp"))
    os.chmod(os.path.join(d, "tmp"), 0o1777)
    wfile(os.path.join(d, "dir", "suid"), b"#!/bin/sh\n", 0o4755)
    wfile(os.path.join(d, "dir", "owned"), b"uid above 65535\n", 0o640)
    os.chown(os.path.join(d, "dir", "owned"), 70000, 70001)
    os.chown(os.path.join(d, "emptydir"), 1000, 1000)


def acl(d):
    for i in range(20):
        wfile(os.path.join(d, "f%02d" % i), b"x" * (i * 7), 0o640)
    os.mkdir(os.path.join(d, "shared"))
    wfile(os.path.join(d, "shared", "doc"), b"inline text\n", 0o660)
    os.mkdir(os.path.join(d, "shared", "sub"))
    wfile(os.path.join(d, "big"), b"b" * 5000)
    os.symlink("shared/doc", os.path.join(d, "link"))


def devdir(d):
    n = 0
    for major, name, count in ((1, "mem", 10), (4, "tty", 40), (5, "ptmx", 3), (10, "misc", 20),
                               (136, "pts/", 8), (189, "bus/usb/001/", 4)):
        for minor in range(count):
            p = os.path.join(d, "%s%d" % (name, minor))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.mknod(p, 0o620 | stat.S_IFCHR, os.makedev(major, minor))
            n += 1
    for minor in range(0, 48, 16):
        for part in range(4):
            p = os.path.join(d, "sd%s%s" % ("abc"[minor // 16], part or ""))
            os.mknod(p, 0o660 | stat.S_IFBLK, os.makedev(8, minor + part))
    os.mknod(os.path.join(d, "loop-control"), 0o660 | stat.S_IFCHR, os.makedev(10, 237))
    os.mknod(os.path.join(d, "big_numbers"), 0o600 | stat.S_IFBLK, os.makedev(259, 1048575))
    os.mkdir(os.path.join(d, "disk"))
    os.mkdir(os.path.join(d, "disk", "by-id"))
    for i in range(6):
        os.symlink("../../sda%d" % (i % 4 or 1), os.path.join(d, "disk", "by-id", "ata-%d" % i))
    os.mkfifo(os.path.join(d, "initctl"), 0o600)
    s = socket.socket(socket.AF_UNIX)
    s.bind(os.path.join(d, "log"))
    s.close()
    os.symlink("/proc/self/fd", os.path.join(d, "fd"))
    os.mkdir(os.path.join(d, "shm"))
    os.chmod(os.path.join(d, "shm"), 0o1777)


def small(d):
    base(d, with_sparse=False)
    os.mkfifo(os.path.join(d, "fifo"), 0o644)
    os.mknod(os.path.join(d, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(os.path.join(d, "sda"), 0o660 | stat.S_IFBLK, os.makedev(8, 0))


def pax(d):
    small(d)
    f = os.path.join(d, "dir", "file")
    os.setxattr(f, "user.comment", b"a user attribute")
    os.setxattr(f, "trusted.big", b"t" * 400)
    os.setxattr(os.path.join(d, "bigfile"), "security.capability",
                bytes.fromhex("01000002" "00200000" "00000000" "00000000" "00000000"))
    os.setxattr(os.path.join(d, "dir"), "user.on_a_dir", b"1")


def times(d):
    """Every entry's atime/mtime a fixed whole second, bottom-up."""
    k = 0
    for root, dirs, files in os.walk(d, topdown=False):
        for name in sorted(files + dirs):
            k += 1
            os.utime(os.path.join(root, name), (T0 + k, T0 + 2 * k), follow_symlinks=False)
    os.utime(d, (T0, T0))


def content_hash(path, size):
    """The bytes' hash, reading only where the file has data: each 4 KiB
    chunk that is not all zeros, with its offset (a 1 GiB hole costs
    nothing, and where the holes lie does not matter)."""
    import hashlib
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from popcmp import data_runs
    h = hashlib.sha256()
    zero = bytes(4096)
    done = 0
    with open(path, "rb") as f:
        for a, b in data_runs(f.fileno(), size):
            a = max(done, a - a % 4096)
            f.seek(a)
            while a < b:
                chunk = f.read(4096)
                if not chunk:
                    break
                if chunk != zero[:len(chunk)]:
                    h.update(b"%d:" % a + chunk)
                a += len(chunk)
            done = a
    return h.hexdigest()[:16]


def listing(top):
    import hashlib
    out = []
    for root, dirs, files in os.walk(top):
        if root == top and "lost+found" in dirs:
            dirs.remove("lost+found")
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            f = [os.path.relpath(p, top), stat.filemode(st.st_mode), "%o" % (st.st_mode & 0o7777),
                 "%d:%d" % (st.st_uid, st.st_gid)]
            if not stat.S_ISDIR(st.st_mode):
                f.append("n%d" % st.st_nlink)
            if stat.S_ISREG(st.st_mode):
                f += ["s%d" % st.st_size, content_hash(p, st.st_size)]
            elif stat.S_ISLNK(st.st_mode):
                f.append("-> " + os.readlink(p))
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                f.append("%d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
            for a in sorted(os.listxattr(p, follow_symlinks=False)):
                v = os.getxattr(p, a, follow_symlinks=False)
                f.append("%s=%s" % (a, hashlib.sha256(v).hexdigest()[:8]))
            out.append(" ".join(f))
    for line in sorted(out):
        print(line)


def main():
    if sys.argv[1] == "--listing":
        listing(sys.argv[2])
        return
    kind, d = sys.argv[1], sys.argv[2]
    os.umask(0)
    os.makedirs(d)
    {"base": base, "acl": acl, "devdir": devdir, "small": small, "pax": pax}[kind](d)
    times(d)


if __name__ == "__main__":
    main()
