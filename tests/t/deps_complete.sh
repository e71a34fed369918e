#!/bin/bash
# deps_complete: scripts/deps.sh installs every external command the suite
# and the scripts run, on a fresh Debian machine (issue 12 item 13).
#
# tests/cmdscan.py lists the commands in command position of every script
# the suite runs: tests/lib.sh, tests/mkmatrix.sh, tests/t/*, the unit
# vector generators, scripts/*.sh, bench/*.sh, .ci/run and the shared
# kernel64k runner (run.sh, setup.sh, selftest.sh; its init runs in the
# guest).  Each command is looked up on the standard Debian path
# (/usr/sbin:/usr/bin:/sbin:/bin, so no pyenv shim or /usr/local copy
# stands in for a package) and mapped to the package that provides it with
# `dpkg -S`.  That package must be one deps.sh installs: in its list, or
# pulled in by the list (apt's Depends/Pre-Depends, which --no-install-recommends
# still installs), or on every Debian system (Essential: yes or Priority:
# required).  A command that is not installed here cannot be mapped: that
# fails too, naming it.
# Catches: a test that starts calling a command from a package deps.sh does
# not list (modprobe from kmod, whose absence turned need_root_loop's
# fallback into a skip, which CI counts as a failure).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON"
need_cmd dpkg dpkg-query
S=$E4_SRCDIR
files=("$S/tests/lib.sh" "$S/tests/mkmatrix.sh" "$S"/tests/t/*.sh "$S"/tests/t/*.bash
	"$S"/tests/unit/*.sh "$S"/scripts/*.sh "$S"/bench/*.sh "$S/.ci/run")
for f in run.sh setup.sh selftest.sh; do
	[ -f "$K64_TOOLS/$f" ] || fail "shared runner missing: $K64_TOOLS/$f"
	files+=("$K64_TOOLS/$f")
done
"$PYTHON" "$E4_TESTDIR/cmdscan.py" "${files[@]}" >"$T/cmds" || fail "cmdscan.py failed"
n=$(wc -l <"$T/cmds")
[ "$n" -ge 40 ] || fail "only $n commands found: the scanner is broken"

# deps.sh's package list: the words of its pkgs=( ... ) array
sed -n '/^pkgs=(/,/^)/p' "$S/scripts/deps.sh" | sed 's/#.*//; s/pkgs=(//; s/)//' |
	tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u >"$T/listed"
[ -s "$T/listed" ] || fail "no package list found in scripts/deps.sh"
# every installed package's dependencies, for what the list pulls in
dpkg-query -W -f='${Package}\t${Pre-Depends}, ${Depends}\t${Provides}\t${Essential}\t${Priority}\n' \
	>"$T/installed" || fail "dpkg-query failed"

# each command: its path, then the dpkg -S candidates (the path, its target,
# and the other side of the /usr merge)
: >"$T/paths"
missing=()
while IFS=$'\t' read -r cmd where; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$cmd") || p=
	if [ -z "$p" ]; then
		missing+=("$cmd ($where)")
		continue
	fi
	r=$(readlink -f "$p")
	for c in "$p" "$r"; do
		case $c in
		/usr/*) printf '%s\t%s\t%s\n' "$cmd" "$c" "${c#/usr}" ;;
		*) printf '%s\t%s\t%s\n' "$cmd" "$c" "/usr$c" ;;
		esac
	done >>"$T/paths"
done <"$T/cmds"
cut -f2,3 "$T/paths" | tr '\t' '\n' | sort -u >"$T/cands"
# one dpkg -S for all ("pkg[:arch][, pkg:arch]: /path"; diversions left out)
xargs dpkg -S <"$T/cands" 2>/dev/null | grep -v '^diversion by' >"$T/owners"

"$PYTHON" - "$T" "${missing[@]+"${missing[@]}"}" <<'EOF'
import sys
d, missing = sys.argv[1], sys.argv[2:]
read = lambda n: [l.rstrip("\n") for l in open(d + "/" + n) if l.strip()]
listed = set(read("listed"))
# installed packages: dependencies (every alternative), virtual names, base
deps, provider, base = {}, {}, {}
for l in read("installed"):
    p, dep, prov, ess, prio = (l.split("\t") + [""] * 5)[:5]
    deps[p] = {a.strip().split(" ")[0].split(":")[0]
               for group in dep.split(",") for a in group.split("|") if a.strip()}
    for v in prov.split(","):
        if v.strip():
            provider.setdefault(v.strip().split(" ")[0], set()).add(p)
    base[p] = ess == "yes" or prio == "required"
closure, todo = set(), list(listed)
while todo:
    p = todo.pop()
    for q in {p} | provider.get(p, set()):
        if q not in closure:
            closure.add(q)
            todo.extend(deps.get(q, ()))
owner = {}
for l in read("owners"):
    pk, path = l.split(": ", 1)
    owner[path] = [p.strip().split(":")[0] for p in pk.split(",")]
where = dict(l.split("\t", 1) for l in read("cmds"))
pkgs_of = {}
for l in read("paths"):
    cmd, *cands = l.split("\t")
    for c in cands:
        pkgs_of.setdefault(cmd, [])
        for p in owner.get(c, []):
            if p not in pkgs_of[cmd]:
                pkgs_of[cmd].append(p)
bad = []
how = {"list": 0, "dependency": 0, "base system": 0}
for cmd in sorted(pkgs_of):
    pk = pkgs_of[cmd]
    if not pk:
        bad.append("%s (%s): no package provides it (dpkg -S)" % (cmd, where[cmd]))
    elif any(p in listed for p in pk):
        how["list"] += 1
    elif any(p in closure for p in pk):
        how["dependency"] += 1
    elif any(base.get(p) for p in pk):
        how["base system"] += 1
    else:
        bad.append("%s (%s): package %s is not installed by scripts/deps.sh"
                   % (cmd, where[cmd], " or ".join(pk)))
for m in missing:
    bad.append("%s: not installed here, so its package is unknown (install it and list "
               "its package in scripts/deps.sh)" % m)
for b in bad:
    print("deps_complete: " + b)
print("deps_complete: %d commands; by deps.sh's list %d, its dependencies %d, the base "
      "system %d; %d not covered" % (len(pkgs_of) + len(missing), how["list"],
                                      how["dependency"], how["base system"], len(bad)))
sys.exit(1 if bad else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "scripts/deps.sh misses packages the suite needs"
exit 0
