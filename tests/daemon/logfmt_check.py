#!/usr/bin/env python3
"""logfmt_check.py FILE...: every line of migschedd's log files is strict logfmt, as
src/daemon/log.h promises: `key=value` pairs separated by one blank, each key once, first
ts (RFC 3339, UTC, milliseconds), level (debug, info, warn, error) and event; a value is a
run of printable ASCII without blanks, quotes, backslashes or '=', or a double-quoted UTF-8
string whose only escapes are \\" \\\\ \\n and \\xHH and which holds no control character. Prints each
bad line with its file, number and the first problem, and exits 1 if there is one."""
import re
import sys

KEY = re.compile(r'[A-Za-z_][A-Za-z0-9_.]*')
PLAIN = re.compile(r'[!#-<>-\[\]-~]+')  # printable ASCII but blank, '"', '=', '\'
ESCAPE = re.compile(r'\\(["\\n]|x[0-9a-f]{2})')
TS = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z')
LEVELS = {'debug', 'info', 'warn', 'error'}


def quoted(line, i):
    """The end of the quoted value starting at line[i] == '"', or raise ValueError."""
    i += 1
    while i < len(line):
        c = line[i]
        if c == '"':
            return i + 1
        if c == '\\':
            m = ESCAPE.match(line, i)
            if not m:
                raise ValueError('bad escape at column %d' % (i + 1))
            i = m.end()
            continue
        if ord(c) < 0x20 or ord(c) == 0x7f:
            raise ValueError('control character in a quoted value at column %d' % (i + 1))
        i += 1
    raise ValueError('unterminated quoted value')


def pairs(line):
    """The line's (key, value) pairs, or raise ValueError naming the first problem."""
    out, seen, i = [], set(), 0
    while True:
        m = KEY.match(line, i)
        if not m:
            raise ValueError('no key at column %d' % (i + 1))
        key = m.group()
        if key in seen:
            raise ValueError('key %s twice' % key)
        seen.add(key)
        i = m.end()
        if i >= len(line) or line[i] != '=':
            raise ValueError('key %s without =' % key)
        i += 1
        if i < len(line) and line[i] == '"':
            end = quoted(line, i)
        else:
            v = PLAIN.match(line, i)
            if not v:
                raise ValueError('key %s: empty or bad unquoted value' % key)
            end = v.end()
        out.append((key, line[i:end]))
        i = end
        if i == len(line):
            return out
        if line[i] != ' ':
            raise ValueError('no blank after the value of %s (column %d)' % (key, i + 1))
        i += 1


def check(line):
    p = pairs(line)
    keys = [k for k, _ in p[:3]]
    if keys != ['ts', 'level', 'event']:
        raise ValueError('does not begin with ts, level, event')
    if not TS.fullmatch(p[0][1]):
        raise ValueError('bad ts %s' % p[0][1])
    if p[1][1] not in LEVELS:
        raise ValueError('bad level %s' % p[1][1])


def main(paths):
    bad = lines = 0
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        if data and not data.endswith(b'\n'):
            print('%s: the last line has no newline' % path)
            bad += 1
        for n, raw in enumerate(data.splitlines(), 1):
            lines += 1
            try:
                check(raw.decode('utf-8'))
            except UnicodeDecodeError:
                print('%s:%d: not UTF-8: %r' % (path, n, raw[:200]))
                bad += 1
            except ValueError as e:
                print('%s:%d: %s: %r' % (path, n, e, raw[:300]))
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
