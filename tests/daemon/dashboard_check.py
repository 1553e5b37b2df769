#!/usr/bin/env python3
"""dashboard_check.py DASHBOARD METRICS COUNTERS RULES: every metric a Grafana dashboard's
PromQL names (its panels' targets and its variables' label_values) is a series name in
METRICS (a scrape of migschedd's /metrics) or a counter of COUNTERS (dcgm-exporter's
documented list, name,type,file lines). Writes the queries, Grafana's variables replaced,
as a Prometheus rule file to RULES for `promtool check rules` to parse. Prints what each
name was found in; exits 1 naming every metric found in neither."""
import json
import re
import sys

KEYWORDS = {'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left',
            'group_right', 'offset', 'bool', 'inf', 'nan',
            # aggregation operators, which may take "by (...)" before their parenthesis
            'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values',
            'bottomk', 'topk', 'quantile'}
# Words followed by a parenthesised list of label names, not of expressions.
LABEL_LISTS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right'}
TOKEN = re.compile(r'''
    (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<braces>\{[^}]*\})
  | (?P<range>\[[^\]]*\])
  | (?P<number>\d+(?:\.\d+)?(?:e[+-]?\d+)?)
  | (?P<word>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<paren>\()
  | (?P<other>\S)
''', re.X)
GRAFANA_VARS = {'$__rate_interval': '5m', '$__interval': '1m', '$__range': '1h'}


def metric_names(expr):
    """The metric names in a PromQL expression (a word that is no keyword, function name,
    label list or label matcher)."""
    names, tokens = [], [(m.lastgroup, m.group()) for m in TOKEN.finditer(expr)]
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else (None, None)
        if kind == 'word' and text.lower() in LABEL_LISTS:
            if nxt[0] == 'paren':  # skip the label names up to the closing parenthesis
                i += 2
                while i < len(tokens) and tokens[i][1] != ')':
                    i += 1
        elif kind == 'word' and nxt[0] != 'paren' and text.lower() not in KEYWORDS:
            names.append(text)
        i += 1
    return names


def grafana_free(expr):
    """expr with Grafana's variables replaced by values PromQL accepts."""
    for var, value in GRAFANA_VARS.items():
        expr = expr.replace(var, value)
    return re.sub(r'\$\{?[A-Za-z_][A-Za-z0-9_]*\}?', '.*', expr)


def queries(dash):
    """(where, PromQL) of every panel target, rows' panels included, and every variable's
    label_values() metric."""
    out = []

    def panels(ps):
        for p in ps:
            for t in p.get('targets', []):
                if t.get('expr'):
                    out.append(('panel %s "%s"' % (p.get('id'), p.get('title')), t['expr']))
            panels(p.get('panels', []))
    panels(dash.get('panels', []))
    for v in dash.get('templating', {}).get('list', []):
        q = v.get('query')
        q = q.get('query') if isinstance(q, dict) else q
        m = re.fullmatch(r'label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\)', q or '')
        if v.get('type') == 'query' and m:
            out.append(('variable %s' % v['name'], m.group(1)))
    return out


def main(dash_path, metrics_path, counters_path, rules_path):
    with open(dash_path) as f:
        dash = json.load(f)
    served = set()
    with open(metrics_path) as f:
        for line in f:
            if line.strip() and not line.startswith('#'):
                served.add(re.match(r'[A-Za-z_:][A-Za-z0-9_:]*', line).group())
    with open(counters_path) as f:
        dcgm = {l.split(',')[0] for l in f if l.strip() and not l.startswith('#')}
    # The extractor itself, on a join of the dashboard's shape.
    assert metric_names('max by (a) (X{b="c"} * on(UUID, GPU_I_ID) group_left(u) '
                        'rate(Y[5m]) + 0 * Z)') == ['X', 'Y', 'Z'], 'the name extractor'
    qs = queries(dash)
    bad = 0
    with open(rules_path, 'w') as rules:
        rules.write('groups:\n  - name: dashboard\n    rules:\n')
        for n, (where, expr) in enumerate(qs):
            rules.write('      - record: dashboard:query_%d\n        expr: %s\n'
                        % (n, json.dumps(grafana_free(expr))))
            names = metric_names(grafana_free(expr))
            if not names:
                print('%s: no metric in %s' % (where, expr))
                bad += 1
            for name in names:
                if name in served:
                    print('%s: %s (migschedd)' % (where, name))
                elif name in dcgm:
                    print('%s: %s (dcgm-exporter)' % (where, name))
                else:
                    print('%s: %s is neither served by migschedd nor a documented '
                          'dcgm-exporter counter' % (where, name))
                    bad += 1
    print('%d queries' % len(qs))
    return 1 if bad or not qs else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:5]))
