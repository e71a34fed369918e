#!/usr/bin/env python3
"""cmdscan.py FILE...: the external commands that bash scripts call.

Prints one line per command name, "NAME<TAB>FILE:LINE" (the first place it is
called), for every word in command position that is not a bash builtin or
keyword and not a function defined in one of the scanned files.  Used by
tests/t/deps_complete.sh to check that scripts/deps.sh installs every
command the suite runs.

What counts as a call:
 - the first word of a simple command (after assignments and redirections),
   at the start of a line, after ; & && || | ( ) { and the keywords that
   open a command list (then, do, else, if, while, until, !, time), also
   inside $( ), ` ` and process substitutions;
 - the command run by a wrapper: exec, command, env, nice, nohup, stdbuf,
   setsid, ionice, timeout and the suite's with_timeout, runcap, xargs,
   strace, flock, and find's -exec/-execdir/-ok;
 - the command strings given to bash -c, sh -c, eval, trap, on_exit;
 - the arguments of need_cmd, and X in `command -v X`;
 - in heredoc bodies (data, usually Python): a literal program name in
   subprocess.run([...]) and the like.
Case patterns, quoted text, comments, arithmetic and heredoc bodies are not
commands.  Words that are not plain names (variables, paths) are skipped:
the suite's variables ($PYTHON, $REF_MKE2FS, ...) are set through
`command -v NAME`, which counts.
"""
import re
import subprocess
import sys

OPS = set(";&|()<>")
OPEN_LIST = {"then", "do", "else", "elif", "if", "while", "until", "!", "time", "{", "}",
             "fi", "done", "esac", "in"}
REDIRS = {"<", ">", ">>", "<<<", ">&", "<&", "&>", "&>>", ">|", "<>"}


class Lexer:
    """Bash tokens: ('w', text, line) words, ('op', text, line) operators,
    ('nl', '', line) ends of lines.  Nested $( ) / ` ` / <( ) bodies are
    returned through self.subs as (text, line) to scan on their own;
    heredoc bodies through self.heredocs."""

    def __init__(self, text, line=1):
        self.s = text
        self.i = 0
        self.line = line
        self.subs = []
        self.heredocs = []
        self.pending = []	# heredoc delimiters waiting for the end of the line

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def balanced(self, open_, close):
        """From just after an opening open_, to its matching close (skipping
        quotes); returns the inside."""
        depth, j, start = 1, self.i, self.i
        while j < len(self.s):
            c = self.s[j]
            if c == "\\":
                j += 2
                continue
            if c == "'" and open_ != "{":
                k = self.s.find("'", j + 1)
                j = len(self.s) if k < 0 else k + 1
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if not depth:
                    break
            j += 1
        inside = self.s[start:j]
        self.line += inside.count("\n")
        self.i = j + 1
        return inside

    def dollar(self, word):
        """At '$': consume a substitution or expansion into word."""
        line = self.line
        if self.s.startswith("$((", self.i):
            self.i += 3
            self.balanced("(", ")")
            if self.peek() == ")":
                self.i += 1
            word.append("0")
        elif self.s.startswith("$(", self.i):
            self.i += 2
            self.subs.append((self.balanced("(", ")"), line))
            word.append("$()")
        elif self.s.startswith("${", self.i):
            self.i += 2
            self.balanced("{", "}")
            word.append("${}")
        else:
            word.append("$")
            self.i += 1

    def backquote(self, word):
        line = self.line
        j = self.s.find("`", self.i + 1)
        if j < 0:
            j = len(self.s)
        inside = self.s[self.i + 1:j]
        self.line += inside.count("\n")
        self.subs.append((inside, line))
        self.i = j + 1
        word.append("$()")

    def double_quoted(self, word):
        self.i += 1
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                word.append(self.peek(1))
                self.i += 2
                continue
            if c == "$":
                self.dollar(word)
                continue
            if c == "`":
                self.backquote(word)
                continue
            if c == "\n":
                self.line += 1
            word.append(c)
            self.i += 1

    def read_heredocs(self):
        """At the start of a line after heredoc operators: skip their bodies."""
        for delim, strip in self.pending:
            start = self.line
            body = []
            while self.i < len(self.s):
                j = self.s.find("\n", self.i)
                if j < 0:
                    j = len(self.s)
                ln = self.s[self.i:j]
                self.i = j + 1
                self.line += 1
                if (ln.lstrip("\t") if strip else ln) == delim:
                    break
                body.append(ln)
            self.heredocs.append(("\n".join(body), start))
        self.pending = []

    def tokens(self):
        out = []
        word, wline = None, self.line
        while True:
            c = self.peek()
            if word is not None and (not c or c in " \t\n" or c in OPS and not
                                     (c == "(" and "".join(word).endswith("="))):
                out.append(("w", "".join(word), wline))
                word = None
                if out[-2:-1] and out[-2][0] == "op" and out[-2][1] in ("<<", "<<-"):
                    self.pending.append((out[-1][1], out[-2][1] == "<<-"))
            if not c:
                break
            if c == "\n":
                out.append(("nl", "", self.line))
                self.i += 1
                self.line += 1
                if self.pending:
                    self.read_heredocs()
                continue
            if c in " \t":
                self.i += 1
                continue
            if c == "\\" and self.peek(1) == "\n":
                self.i += 2
                self.line += 1
                continue
            if word is None and c == "#":
                while self.peek() and self.peek() != "\n":
                    self.i += 1
                continue
            if c in OPS and word is None:
                if c == "(" and self.peek(1) == "(":	# (( arithmetic ))
                    line = self.line
                    self.i += 2
                    self.balanced("(", ")")
                    if self.peek() == ")":
                        self.i += 1
                    out.append(("w", "((0))", line))
                    continue
                if c in "<>" and self.peek(1) == "(":	# process substitution
                    line = self.line
                    self.i += 2
                    self.subs.append((self.balanced("(", ")"), line))
                    out.append(("w", "<()", line))
                    continue
                j = self.i
                while j < len(self.s) and self.s[j] in OPS and j - self.i < 3:
                    j += 1
                op = self.s[self.i:j]
                # split runs that are two operators (";;" stays, ")|" splits)
                for known in (";;&", ";;", ";&", "&&", "||", "|&", "<<-", "<<<", "<<", ">>",
                              "&>>", "&>", ">&", "<&", ">|", "<>"):
                    if op.startswith(known):
                        op = known
                        break
                else:
                    op = op[0]
                self.i += len(op)
                out.append(("op", op, self.line))
                continue
            if word is None:
                word, wline = [], self.line
            if c == "\\":
                word.append(self.peek(1))
                self.i += 2
            elif c == "'":
                j = self.s.find("'", self.i + 1)
                j = len(self.s) if j < 0 else j
                inside = self.s[self.i + 1:j]
                self.line += inside.count("\n")
                word.append(inside)
                self.i = j + 1
            elif c == '"':
                self.double_quoted(word)
            elif c == "$":
                self.dollar(word)
            elif c == "`":
                self.backquote(word)
            elif c == "(" and "".join(word).endswith("="):	# array assignment
                self.i += 1
                self.balanced("(", ")")
                word.append("()")
            else:
                word.append(c)
                self.i += 1
        return out


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")


def wrapped(words, i):
    """words[i] is a wrapper: index of the command it runs (or None)."""
    w, j = words[i], i + 1

    def skip_opts(with_arg=()):
        nonlocal j
        while j < len(words) and words[j].startswith("-") and words[j] != "--":
            j += 2 if words[j] in with_arg else 1
        if j < len(words) and words[j] == "--":
            j += 1

    if w == "command":
        if j < len(words) and words[j] in ("-v", "-V"):
            return j + 1
        skip_opts()
        return j
    if w in ("exec", "nice", "nohup", "setsid", "stdbuf", "ionice"):
        skip_opts(("-n", "-c", "-a"))
        return j
    if w == "env":
        while j < len(words) and (words[j].startswith("-") or re.match(r"^\w+=", words[j])):
            j += 1
        return j
    if w == "timeout":
        skip_opts(("-k", "-s", "--kill-after", "--signal"))
        return j + 1
    if w == "with_timeout":
        return j + 1
    if w == "runcap":
        return j + 2
    if w == "xargs":
        skip_opts(("-n", "-P", "-I", "-L", "-d", "-a", "-s", "-E"))
        return j
    if w == "strace":
        skip_opts(("-o", "-e", "-s", "-p", "-P", "-u", "-E", "-a", "-b", "-O", "-S", "-X"))
        return j
    if w == "flock":
        skip_opts(("-w", "-E", "--timeout", "--conflict-exit-code"))
        return j + 1
    return None


WRAPPERS = {"command", "exec", "nice", "nohup", "setsid", "stdbuf", "ionice", "env",
            "timeout", "with_timeout", "runcap", "xargs", "strace", "flock"}
STRING_CMDS = {"eval", "trap", "on_exit"}


class Scanner:
    def __init__(self):
        self.calls = {}		# name -> first "file:line"
        self.defined = set()

    def note(self, name, where):
        if NAME.match(name):
            self.calls.setdefault(name, where)

    def scan_text(self, text, path, line=1, depth=0):
        if depth > 8:
            return
        lx = Lexer(text, line)
        toks = lx.tokens()
        self.commands(toks, path, depth)
        for sub, ln in lx.subs:
            self.scan_text(sub, path, ln, depth + 1)
        for body, ln in lx.heredocs:
            for m in re.finditer(r"subprocess\.\w+\(\s*\[\s*['\"]([\w.+-]+)['\"]", body):
                self.note(m.group(1), "%s:%d" % (path, ln))

    def commands(self, toks, path, depth):
        cmdpos, case_stack, i = True, [], 0
        words_of_cmd = []	# the words of the current simple command
        while i < len(toks):
            kind, text, ln = toks[i]
            where = "%s:%d" % (path, ln)
            if kind in ("nl", "op"):
                if kind == "op" and text in REDIRS | {"<<", "<<-"}:
                    i += 2		# the target is not a command
                    continue
                if kind == "op" and text in (";;", ";&", ";;&") and case_stack:
                    case_stack[-1] = "pattern"
                if kind == "op" and text == ")" and case_stack and case_stack[-1] == "pattern":
                    case_stack[-1] = "body"
                cmdpos = True
                self.finish(words_of_cmd, path, depth)
                words_of_cmd = []
                i += 1
                continue
            if case_stack and case_stack[-1] in ("pattern", "header"):
                if case_stack[-1] == "header" and text == "in":
                    case_stack[-1] = "pattern"
                elif case_stack[-1] == "pattern" and text == "esac":
                    case_stack.pop()
                i += 1
                continue
            if not cmdpos:
                words_of_cmd.append((text, where))
                i += 1
                continue
            if text == "esac" and case_stack:
                case_stack.pop()
                i += 1
                continue
            if text == "case":
                case_stack.append("header")
                i += 1
                continue
            if text in ("for", "select"):
                while i < len(toks) and toks[i][1] not in ("do",) and toks[i][0] != "nl" \
                        and toks[i][1] != ";":
                    i += 1
                continue
            if text == "function":
                i += 2
                continue
            if text == "[[":		# a test: operands, not commands
                while i < len(toks) and toks[i][1] != "]]":
                    i += 1
                i += 1
                continue
            if text in OPEN_LIST:
                i += 1
                continue
            if re.match(r"^[A-Za-z_][A-Za-z_0-9]*(\[[^]]*\])?\+?=", text):
                i += 1		# an assignment before the command
                continue
            # a function definition: NAME ( )
            if i + 2 < len(toks) and toks[i + 1][1] == "(" and toks[i + 2][1] == ")":
                self.defined.add(text)
                i += 3
                continue
            cmdpos = False
            words_of_cmd = [(text, where)]
            i += 1
        self.finish(words_of_cmd, path, depth)

    def finish(self, cmd, path, depth):
        """One simple command's words: note the command(s) it runs."""
        k = 0
        while k < len(cmd):
            name, where = cmd[k]
            self.note(name, where)
            words = [w for w, _ in cmd]
            if name in STRING_CMDS and k + 1 < len(cmd):
                self.scan_text(cmd[k + 1][0], path, int(where.rsplit(":", 1)[1]), depth + 1)
            if name in ("bash", "sh") and k + 2 < len(cmd) and words[k + 1] == "-c":
                self.scan_text(cmd[k + 2][0], path, int(where.rsplit(":", 1)[1]), depth + 1)
            if name == "need_cmd":
                for w, wh in cmd[k + 1:]:
                    self.note(w, wh)
            for j in range(k + 1, len(cmd) - 1):
                if words[j] in ("-exec", "-execdir", "-ok"):
                    self.note(words[j + 1], cmd[j + 1][1])
            nxt = wrapped(words, k) if name in WRAPPERS else None
            if nxt is None or nxt >= len(cmd):
                break
            k = nxt


def main():
    sc = Scanner()
    for path in sys.argv[1:]:
        sc.scan_text(open(path, errors="replace").read(), path)
    builtin = set(subprocess.run(["bash", "-c", "compgen -b; compgen -k"], capture_output=True,
                                 text=True).stdout.split())
    for name in sorted(sc.calls):
        if name in builtin or name in sc.defined:
            continue
        print("%s\t%s" % (name, sc.calls[name]))


if __name__ == "__main__":
    main()
