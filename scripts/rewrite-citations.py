#!/usr/bin/env python3
"""Replace citations of the team's private working notes by citations of the project's own docs/.

The notes (the per-paper summaries, the reference-values sheet, the DL4J notes and the design memo of the
development workspace) are not part of the repository, so a reader cannot follow a citation of them. This
script rewrites every such citation in *.java and *.md files (outside docs/) into a citation of the matching
docs/<page>.md#<anchor>, prefixed by the paper where the cited section only summarised the paper and the
paper is not already named nearby.

Usage:  python3 scripts/rewrite-citations.py [ROOT] [--check]
  ROOT     repository root (default: the parent of this script's folder)
  --check  change nothing; list the citations that would be rewritten and exit 1 if there are any

The script is idempotent: a second run changes nothing. It prints every changed line (old and new).
Handled forms (N is the paper number 0..4 as three digits, "d" below stands for the word that starts them):
  "d 00N", "d 00N §x.y", "d 00N P7", "d 00N pitfall 4", "d 00N erratum E3", "d 00N §x, P2, P5–P6",
  "(d 00N §x.y Table 7)", line breaks inside a citation (Javadoc and // comments), "d P6" / "d §2.1"
  without a number (the paper is inferred from the file), possessives ("d 00N P7's resolution"),
  unknown sections (mapped to the per-paper page), and the reference/design/DL4J notes by file name.
"""
import os
import re
import sys

# Pattern pieces are assembled so that this file does not itself contain the strings it removes.
WORD = 'dig' + 'est'
REF_SHEET = 'anch' + 'ors'
DESIGN = 'DES' + 'IGN'
DL4J_NOTES = 'dl4j' + '-notes'
WORKSPACE = 'shared/' + 'reference'

PAPERS = {
    '000': ('Ye & Shokri 2022', ('Ye &', 'Ye–Shokri', 'YeShokri')),
    '001': ("Boninsegna's survey", ('Boninsegna',)),
    '002': ('Bok, Su & Altschuler 2024', ('Altschuler', 'Bok et al', 'Bok,')),
    '003': ('Chen & Liu 2025', ('Chen &', 'Chen and Liu')),
    '004': ('Kong & Ribero 2025', ('Ribero',)),
}

# Per paper: the page for anything not listed, then sections (longest prefix wins) and numbered items.
A, E, T, S, D = 'accountants.md', 'errata.md', 'threat-models.md', 'sampling.md', 'dl4j-internals.md'
MAP = {
    '000': {
        None: (A, 'ye-shokri', True),
        '§0': (A, 'ye-shokri', True), '§1': (A, 'ye-shokri', True), '§2': (A, 'ye-shokri', True),
        '§2.6': (A, 'fixed-partition-composition', True),
        '§2.9': (A, 'ye-shokri-certified', True), '§2.10': (E, 'ye-shokri-conversion', False),
        '§3': (A, 'ye-shokri', True), '§4': (A, 'ye-shokri', True), '§5': (A, 'ye-shokri', True),
        '§6': (A, 'ye-shokri', True), '§7': (E, 'ye-shokri', False),
        '§pitfalls': (T, 'neighbouring-relations', False),
        'P1': (E, 'ye-shokri-noise-scale', False), 'P2': (E, 'ye-shokri-sensitivity', False),
        'P3': (E, 'ye-shokri-sensitivity', False), 'P4': (E, 'ye-shokri-first-term', False),
        'P5': (A, 'ye-shokri', False), 'P6': (A, 'ye-shokri', False), 'P7': (E, 'ye-shokri-step-size', False),
        'P8': (A, 'ye-shokri-certified', False), 'P9': (A, 'ye-shokri-certified', False),
        'P10': (S, 'shuffle-once', False), 'P11': (T, 'what-voids-hidden-state', False),
        'P12': (T, 'neighbouring-relations', False), 'P13': (T, 'combining-bounds', False),
        'P14': (T, 'combining-bounds', False), 'P15': (A, 'ye-shokri', False),
        'P16': (E, 'ye-shokri-theorem-4-5-epochs', False), 'P17': (E, 'ye-shokri-theorem-5-3-exponent', False),
        'P18': (E, 'ye-shokri-prop-6-2', False), 'P19': (A, 'ye-shokri', False),
    },
    '001': {
        None: (A, 'sampled-gaussian-rdp', True),
        '§1': (S, 'expected-batch-size', True), '§2.1': (A, 'rdp-conversion', True),
        '§2.2': (E, 'survey-conversion', True), '§2.3': (A, 'rdp-conversion', True),
        '§2.4': (E, 'pabi-corrected', True), '§2.5': (A, 'langevin-lsi', True),
        '§3': (A, 'sampled-gaussian-rdp', True), '§3.5': (A, 'pabi', True), '§3.6': (A, 'langevin-lsi', True),
        '§5': (S, 'poisson', False), '§6': (S, 'expected-batch-size', False),
        'pitfall 1': (A, 'sampled-gaussian-rdp', False), 'pitfall 2': (T, 'neighbouring-relations', False),
        'pitfall 3': (S, 'expected-batch-size', False), 'pitfall 4': (S, 'poisson', False),
        'pitfall 5': (A, 'rdp-orders', False), 'pitfall 8': (E, 'pabi-corrected', False),
        'pitfall 9': (T, 'what-voids-hidden-state', False), 'pitfall 10': (A, 'pabi', False),
        'pitfall 11': (E, 'langevin-lsi', False), 'pitfall 12': (E, 'langevin-lsi', False),
    },
    '002': {
        None: (A, 'shifted-interpolation', True),
        '§0': (E, 'shifted-interpolation-text', True), '§3.9.1': (E, 'shifted-interpolation-convex-cyclic', False),
        '§5': (A, 'shifted-interpolation', False),
        'pitfall 1': (E, 'shifted-interpolation-text', False), 'pitfall 2': (E, 'shifted-interpolation-text', False),
        'pitfall 5': (T, 'what-voids-hidden-state', False),
        'pitfall 7': (E, 'shifted-interpolation-gdp-conversion', False),
        'pitfall 8': (E, 'shifted-interpolation-plateau', False), 'pitfall 11': (S, 'shuffle-once', False),
        'pitfall 14': (E, 'shifted-interpolation-text', False), 'pitfall 17': (T, 'neighbouring-relations', False),
    },
    '003': {
        None: (A, 'dp-mbcd', True),
        '§2.1': (E, 'dp-mbcd-prox-formulas', True), '§2.4': (S, 'shuffle-once', True),
        '§2.5': (E, 'dp-mbcd-lifted-updates', True), '§2.6': (E, 'dp-mbcd-nmf', True),
        '§2.7': (T, 'dp-mbcd-auxiliaries', True), '§3': (E, 'dp-mbcd-step-recursion', True),
        '§3.2': (E, 'dp-mbcd-lipschitz-f', True), '§3.3': (E, 'dp-mbcd-lipschitz-t', True),
        '§3.5': (E, 'dp-mbcd-sensitivity', True), '§3.6': (E, 'dp-mbcd-lipschitz-t', True),
        '§3.7': (E, 'dp-mbcd-lipschitz-t', True), '§3.10': (E, 'dp-mbcd-block-composition', True),
        '§5.6': (E, 'dp-mbcd-lifted-updates', False), '§5.7': (E, 'dp-mbcd-nmf', False),
        '§6': (E, 'dp-mbcd', False), '§7': (A, 'dp-mbcd', False),
        'P1': (E, 'dp-mbcd-step-recursion', False), 'P2': (E, 'dp-mbcd-step-recursion', False),
        'P3': (E, 'dp-mbcd-lipschitz-t', False), 'P4': (E, 'dp-mbcd-lipschitz-f', False),
        'P5': (E, 'dp-mbcd-lipschitz-t', False), 'P6': (E, 'dp-mbcd-sensitivity', False),
        'P7': (E, 'dp-mbcd-batch-mean', False), 'P8': (E, 'dp-mbcd-noise-temperature', False),
        'P9': (E, 'dp-mbcd-hessian-clipping', False), 'P10': (T, 'dp-mbcd-auxiliaries', False),
        'P11': (S, 'shuffle-once', False), 'P12': (S, 'shuffle-once', False), 'P13': (A, 'dp-mbcd', False),
        'P14': (T, 'data-independent-choices', False), 'P15': (E, 'dp-mbcd-block-composition', False),
        'P16': (E, 'dp-mbcd-block-composition', False), 'P17': (E, 'dp-mbcd-lifted-updates', False),
        'P18': (E, 'dp-mbcd-lifted-updates', False), 'P19': (E, 'dp-mbcd-lifted-updates', False),
        'P20': (E, 'dp-mbcd-convolution', False), 'P21': (E, 'dp-mbcd-lifted-updates', False),
        'P22': (E, 'dp-mbcd-nmf', False), 'P23': (A, 'dp-mbcd', False), 'P24': (A, 'dp-mbcd', False),
        'P25': (E, 'dp-mbcd-lifted-updates', False), 'P26': (T, 'data-independent-choices', False),
    },
    '004': {
        None: (A, 'kong-ribero', True),
        '§3.3': (E, 'kong-ribero-theorem-2-3', True), '§3.4': (E, 'kong-ribero-corollary-c2', True),
        '§4': (E, 'kong-ribero-other', False), '§7': (E, 'kong-ribero', False), 'errata': (E, 'kong-ribero', False),
        'E1': (E, 'kong-ribero-lipschitz', False), 'E2': (E, 'kong-ribero-theorem-2-3', False),
        'E3': (E, 'kong-ribero-theorem-2-2', False), 'E4': (E, 'kong-ribero-corollary-c2', False),
        'E5': (E, 'kong-ribero-other', False), 'E6': (E, 'kong-ribero-other', False),
        'E7': (E, 'kong-ribero-other', False), 'E8': (E, 'kong-ribero-other', False),
        'P1': (A, 'kong-ribero', False), 'P2': (A, 'kong-ribero', False), 'P3': (T, 'neighbouring-relations', False),
        'P4': (S, 'shuffle-once', False), 'P5': (A, 'kong-ribero', False), 'P6': (A, 'kong-ribero', False),
        'P7': (E, 'kong-ribero-theorem-2-3', False), 'P8': (T, 'what-voids-hidden-state', False),
        'P9': (A, 'kong-ribero', False), 'P10': (A, 'kong-ribero', False), 'P11': (A, 'kong-ribero', False),
        'P12': (T, 'budget-halting', False), 'P13': (E, 'kong-ribero-other', False), 'P14': (T, 'user-level', False),
        'P15': (E, 'kong-ribero-corollary-c2', False),
    },
}

# A citation of a whole paper (no section) is sent to the most specific page its sentence is about.
KEYWORD_DEFAULTS = {
    '001': [(('Langevin', 'log-Sobolev', 'LSI'), (A, 'langevin-lsi', True)),
            (('PABI', 'amplification by iteration', 'Feldman'), (E, 'pabi-corrected', True))],
    '003': [(('recursion',), (E, 'dp-mbcd-step-recursion', True)), (('NMF',), (E, 'dp-mbcd-nmf', True))],
}
# Where one section of a summary served several topics, the file says which one is meant.
PATH_OVERRIDES = [('ProximalOperatorTest', '003', '§5.6', (E, 'dp-mbcd-prox-formulas', False))]

# Which paper a file's number-less citations ("d P6") belong to, when the file cites no numbered one.
PATH_HINTS = [('mbcd', '003'), ('Mbcd', '003'), ('Nmf', '003'), ('prox', '003'), ('Madelon', '003'),
              ('YeShokri', '000'), ('Softmax', '000'), ('KongRibero', '004'), ('ShiftedInterpolation', '002'),
              ('Pabi', '001'), ('Langevin', '001'), ('Sgm', '001'), ('Rdp', '001')]

# --- the citation grammar ---
GAP = r'(?:[ \t]*\n[ \t]*(?:\*(?!/)|//)?[ \t]*|[ \t]+)'          # blank, or a line break inside a comment
NUM = r'00[0-4]'
DASH = r'[ \t]?[–-][ \t]?'
SEC = r'§[ \t]?(?:pitfalls|\d+(?:\.\d+)*(?:' + DASH + r'§?\d+(?:\.\d+)*)?)'
PIT = r'P\d+(?:' + DASH + r'P?\d+)?'
PITFALL = r'pitfalls?[ \t]\d+(?:' + DASH + r'\d+)?'
ERR = r'(?:erratum[ \t])?E\d+(?![\w.])'
ERRATA = r'errata(?:[ \t]§\d+)?'
PAPER_ITEM = (r'(?:Prop\.?|Lemma|Tables?|Fig\.|Figure|Eq\.|Eqs\.|Thm|Alg\.|Cor\.)[ \t]?'
              r'(?:[A-Z]\.)?[0-9IVX]+(?:\.\d+)?(?:/\d+)?')
WARN = r'⚠'
BARE = r'\d+(?![\w.§])'                      # "pitfalls 3, 4": a number continuing the previous kind of item
ITEM = '(?:' + '|'.join([SEC, PIT, PITFALL, ERR, ERRATA, WARN]) + ')'
ITEM_SEP = r'(?:[ \t]*[,/][ \t]*(?:\n[ \t]*(?:\*(?!/)|//)?[ \t]*)?|[ \t]+and[ \t]+|' + GAP + r')'
NEXT_ITEM = '(?:' + ITEM + '|' + BARE + ')'
ITEMS = '(?:' + ITEM_SEP + '?' + ITEM + '(?:' + ITEM_SEP + NEXT_ITEM + ')*)?'
TRAIL = '(?:' + ITEM_SEP + PAPER_ITEM + ')?'
CITE = re.compile(r'(?P<lead>[ \t]?\(?)(?<![\w/])[' + WORD[0] + WORD[0].upper() + ']' + WORD[1:] + r'(?:' + GAP + r'(?P<num>' + NUM + r')(?![\d])(?P<items>' + ITEMS
                  + r')|(?P<items2>' + GAP + ITEM + '(?:' + ITEM_SEP + NEXT_ITEM + r')*))(?P<trail>' + TRAIL + ')'
                  + r"(?P<poss>'s(?:(?: [\w\-]+){1,3}(?=[ ,;:.)]|$))?)?", re.M)
ITEM_RE = re.compile(ITEM + '|' + BARE)

# --- fixed sentences first (exact forms seen in the tree), then the generic grammar ---
def _special(tree_rules):
    return [(re.compile(p, re.M), r) for p, r in tree_rules]

SPECIAL = _special([
    # README's reference section pointed at the development workspace.
    (r'See `\.\./' + WORKSPACE + r'/`[^\n]*\n(?:[^\n]+\n?)*?[^\n]*' + WORD + r' section\.',
     'The papers, the corrected formulas dp4j relies on, threat models and validation sources are in\n'
     '[docs/README.md](docs/README.md). Formulas in the code cite paper and theorem or equation, and the `docs/`\n'
     'note where dp4j departs from the printed formula.'),
    (r'the ' + WORD + r"s' test vectors", 'independently computed reference values'),
    (r'\(' + WORD + r' 000 §5 Ye–Shokri, 001 §3\.5–3\.6 PABI and(\n[ \t]*\*[ \t]*)Langevin, 002 §4\.1/§4\.6 shifted '
     r'interpolation, 003 §5 DP-MBCD, 004 §5\.2 Kong–Ribero; float64 values computed by(\n[ \t]*\*[ \t]*)the '
     + WORD + r' authors\)',
     r'({{accountants.md}}: Ye–Shokri, PABI and\1Langevin, shifted interpolation, DP-MBCD, Kong–Ribero; float64 '
     r"values computed\2separately from the papers' formulas)"),
    (r'computed by(\s*\*?\s*)the ' + WORD + r' authors? from', r'computed separately\1from'),
    (r'computed by(\s*\*?\s*)the ' + WORD + r' authors?', r"computed\1separately from the paper's formulas"),
    (r'values of the ' + WORD + r' author', 'values computed separately from the paper\'s formulas'),
    (r'derived by hand in the ' + WORD + r',', 'derived by hand,'),
    (r'five times the ' + WORD + r"'s\.", 'five times the one-block reference value.'),
    (r'with the ' + WORD + r"'s corrections", 'with the corrections of {{errata.md#dp-mbcd-nmf}}'),
    (r'the ' + WORD + r"'s", 'the independently computed'),
    (r'\(' + WORD + r' 003 Eq\. 14 on sums, P7\)', '(Chen & Liu Eq. 14 on sums; {{errata.md#dp-mbcd-batch-mean}})'),
    (r'paper equation and ' + WORD + r' section', 'paper equation and `docs/` note'),
    (r'(\(|\s)' + WORD + r'(\s*\*?\s*)003 P4 states the looser k_h·k_w, which is m at stride 1\)',
     r'\1the bound often quoted,\2k_h·k_w, is m at stride 1: {{errata.md#dp-mbcd-lipschitz-f}})'),
    (WORD + r' 003 §5\.5\'s one-block values', 'the one-block values of {{accountants.md#dp-mbcd}}'),
    (WORD + r' 003 §5\.2\'s ε again', 'the ε of {{accountants.md#dp-mbcd}} again'),
    (WORD + r' (?:003 )?P4\'s (?:curvature bound )?(γ\(mρ(?:_d)?² \+ L\))',
     r'the curvature bound \1 ({{errata.md#dp-mbcd-lipschitz-f}})'),
    (WORD + r"( ?)003's corrections", r'the corrections of\1{{errata.md#dp-mbcd-nmf}}'),
    (r'the others ' + WORD + r' 001 §3\.2\.', 'the others computed separately from the formulas ({{accountants.md#sampled-gaussian-rdp}}).'),
    (r'RDP summed, §3\.10, P15\)', 'RDP summed: {{errata.md#dp-mbcd-block-composition}})'),
    (r'λ = 0 \(P2\)', 'λ = 0'),
    (r', mean over the batch, P7\)', ', mean over the batch: {{errata.md#dp-mbcd-batch-mean}})'),
    (r'names follow ' + WORD + r' 001 §1 \(Alg\. 2\)', "names follow Boninsegna's Alg. 2 ({{accountants.md#pabi}})"),
    (r'; ' + WORD + r' 001 §1, Alg\. 1\)', '; {{sampling.md#expected-batch-size}})'),
    (r"the issue's and " + REF_SHEET + r"\.md's", "the issue's and TF Privacy's ({{accountants.md#sampled-gaussian-rdp}})"),
])

DESIGN_RE = re.compile(r'(?<![\w/])' + DESIGN + r'\.md(?:[ \t]*(?:\n[ \t]*\*?[ \t]*)?contract(?:[ \t]*(?:\n[ \t]*\*?[ \t]*)?'
                       r'(?P<c>[123]))?)?(?P<colon>:)?')
NOTES_RE = re.compile(r'(?<![\w/])' + DL4J_NOTES + r'(?:\.md)?(?:[ \t]*§(?P<sec>[A-Z][\w\- ]*?(?= gradients|'
                      r'[);,.]|$)(?: gradients)?))?')
SHEET_RE = re.compile(r'(?<![\w/])' + REF_SHEET + r'\.md')
PATH_RE = re.compile(r'`?(?:\.\./)*(?:shared/)?' + 'refer' + r'ence/(?:' + WORD + r's?/[\w.]*|' + REF_SHEET + r'\.md|'
                     + DL4J_NOTES + r'\.md)`?|`?' + WORD + r's?/\d{3}\.md`?|`?(?:\.\./)*' + WORKSPACE + r'/?`?')

CONTRACT = {'1': 'contract-mechanism', '2': 'contract-accountant', '3': 'contract-report'}
NOTES_SECTIONS = [('per-example', 'per-example-gradients'), ('updater', 'updater-blocks'),
                  ('listener', 'listeners'), ('workspace', 'workspaces')]


def expand(item):
    """'P4–P6' -> ['P4','P5','P6']; 'pitfalls 3–4' -> ['pitfall 3','pitfall 4']; '§3.5–3.6' -> ['§3.5','§3.6']."""
    item = re.sub(r'[ \t]+', ' ', item.strip())
    m = re.fullmatch(r'P(\d+) ?[–-] ?P?(\d+)', item)
    if m:
        return ['P%d' % i for i in range(int(m.group(1)), int(m.group(2)) + 1)]
    m = re.fullmatch(r'pitfalls? (\d+)(?: ?[–-] ?(\d+))?', item)
    if m:
        hi = int(m.group(2) or m.group(1))
        return ['pitfall %d' % i for i in range(int(m.group(1)), hi + 1)]
    m = re.fullmatch(r'§ ?([\d.]+) ?[–-] ?§?([\d.]+)', item)
    if m:
        return ['§' + m.group(1), '§' + m.group(2)]
    m = re.fullmatch(r'(?:erratum )?(E\d+)', item)
    if m:
        return [m.group(1)]
    if item.startswith('errata'):
        return ['errata']
    if item == '⚠':
        return []
    return [item.replace('§ ', '§')]


def lookup(num, item):
    table = MAP[num]
    if item in table:
        return table[item]
    if item.startswith('§'):
        key = item
        while '.' in key:
            key = key.rsplit('.', 1)[0]
            if key in table:
                return table[key]
        return table.get(key, table[None])
    return table[None]


def infer_num(path, text):
    counts = {n: len(re.findall(WORD + r'[ \t]+' + n, text)) for n in MAP}
    best = max(counts, key=counts.get)
    if counts[best]:
        return best
    for hint, num in PATH_HINTS:
        if hint in path:
            return num
    return '003'


class Rewriter:
    def __init__(self, root, path, text):
        self.root, self.path, self.text = root, path, text
        self.markdown = path.endswith('.md')
        self.docs_prefix = os.path.relpath(os.path.join(root, 'docs'), os.path.dirname(path)).replace(os.sep, '/')
        self.default_num = None

    def link(self, page, anchor, label=None):
        target = '%s/%s' % (self.docs_prefix, page) + ('#' + anchor if anchor else '')
        shown = label or 'docs/%s' % page + ('#' + anchor if anchor else '')
        return '[%s](%s)' % (shown, target) if self.markdown else shown

    def refs_text(self, refs):
        groups = []
        for page, anchor in refs:
            for g in groups:
                if g[0] == page:
                    if anchor not in g[1]:
                        g[1].append(anchor)
                    break
            else:
                groups.append((page, [anchor]))
        parts = []
        for page, anchors in groups:
            first = self.link(page, anchors[0])
            rest = [self.link(page, a, '#' + a) for a in anchors[1:]]
            parts.append(', '.join([first] + rest))
        return '; '.join(parts)

    def amp(self, s, line):
        stripped = line.lstrip()
        javadoc = self.path.endswith('.java') and (stripped.startswith('*') or stripped.startswith('/**'))
        return s.replace('&', '&amp;') if javadoc else s

    def line_of(self, pos):
        start = self.text.rfind('\n', 0, pos) + 1
        prev = self.text.rfind('\n', 0, max(start - 1, 0)) + 1
        end = self.text.find('\n', pos)
        return self.text[start:end if end >= 0 else len(self.text)], self.text[prev:start]

    def cite(self, m):
        num = m.group('num')
        items_text = m.group('items') if num else m.group('items2')
        if not num:
            if self.default_num is None:
                self.default_num = infer_num(self.path, self.text)
            num = self.default_num
        items = []
        for raw in ITEM_RE.findall(items_text or ''):
            if raw.isdigit():  # continues the previous item: "pitfalls 3, 4", "P6, 7"
                if items and items[-1].startswith('pitfall'):
                    items.append('pitfall ' + raw)
                elif items and re.fullmatch(r'P\d+', items[-1]):
                    items.append('P' + raw)
                continue
            items.extend(expand(raw))
        refs, summary = [], not items
        line, prev = self.line_of(m.start())
        for item in items or [None]:
            page, anchor, is_summary = lookup(num, item) if item else self.whole_paper(num, line + prev)
            for name, n, it, target in PATH_OVERRIDES:
                if name in self.path and n == num and it == item:
                    page, anchor, is_summary = target
            summary = summary or is_summary
            if (page, anchor) not in refs:
                refs.append((page, anchor))
        paper, keys = PAPERS[num]
        named = any(k in line or k in prev or k.replace('&', '&amp;') in line + prev for k in keys)
        out = self.refs_text(refs)
        trail = (m.group('trail') or '').strip(' \t,/\n*')
        trail = re.sub(r'\s+', ' ', trail)
        if trail:
            out = '%s; %s, %s' % (out, paper, trail)
        elif summary and not named and self.opens_citation(m.start()):
            out = '%s; %s' % (paper, out)
        out = self.amp(out, line)
        poss = m.group('poss')
        if poss:
            words = poss[2:].strip()
            out = 'the %s of %s' % (words, out) if words else 'the note %s' % out
        whole = m.group(0)
        if '\n' in whole:  # keep the line break of a citation that spanned two comment lines
            brk = re.search(r'[ \t]*\n[ \t]*(?:\*(?!/)|//)?[ \t]*', whole).group(0)
            return brk.lstrip(' \t') + m.group('lead').strip() + out
        return m.group('lead') + out

    def whole_paper(self, num, context):
        for words, target in KEYWORD_DEFAULTS.get(num, []):
            if any(w in context or w in self.path for w in words):
                return target
        return MAP[num][None]

    def opens_citation(self, pos):
        """True where a citation stands alone: after '(', ';', ',' or at the start of a comment or line."""
        before = self.text[self.text.rfind('\n', 0, pos) + 1:pos].rstrip()
        if self.text[pos:pos + 2].lstrip().startswith('('):
            return True
        return (not before or before.endswith(('(', ';', ',')) or before.lstrip() in ('*', '//', '/**', '-')
                or (self.text[pos:pos + 1] == '\n'))

    def design(self, m):
        c = m.group('c')
        anchor = CONTRACT.get(c, 'packages' if 'accounting' in self.line_of(m.start())[0] else None)
        out = self.link('architecture.md', anchor)
        if c:
            out = 'contract %s, %s' % (c, out)
        return out + (':' if m.group('colon') else '')

    def notes(self, m):
        sec = (m.group('sec') or '').lower()
        line = self.line_of(m.start())[0].lower()
        anchor = 'workspaces' if 'ws_' in line or 'workspace' in line else None
        for key, a in NOTES_SECTIONS if anchor is None else []:
            if key in sec or (not sec and key in line):
                anchor = a
                break
        return self.link('dl4j-internals.md', anchor)

    def sheet(self, m):
        line = self.line_of(m.start())[0]
        if 'μ' in line or 'GDP' in line:
            anchor = 'gaussian-dp'
        elif 'order' in line.lower() and 'list' in line.lower() or self.path.endswith('Orders.java'):
            anchor = 'rdp-orders'
        else:
            anchor = 'sampled-gaussian-rdp'
        return self.link('accountants.md', anchor)

    def assertion(self, m):
        """A test that checks a message for a cited item now checks for the anchor that replaces it."""
        if self.default_num is None:
            self.default_num = infer_num(self.path, self.text)
        page, anchor, _ = lookup(self.default_num, m.group(2))
        return m.group(1) + anchor + '"'

    def run(self):
        if self.path.endswith('Test.java'):
            self.text = ASSERTED_ITEM.sub(self.assertion, self.text)
        for pattern, repl in SPECIAL:
            self.text = pattern.sub(lambda m, r=repl: m.expand(r) if '\\' in r else r, self.text)
        for regex, fn in [(CITE, self.cite), (DESIGN_RE, self.design), (NOTES_RE, self.notes),
                          (SHEET_RE, self.sheet), (PATH_RE, self.note_path)]:
            self.text = regex.sub(fn, self.text)
        self.text = PLACEHOLDER.sub(self.placeholder, self.text)
        self.text = REPEATED.sub(lambda m: m.group(1), self.text)
        return self.text

    def note_path(self, m):
        path = m.group(0)
        num = re.search(r'00[0-4]', path)
        if num:
            page, anchor, _ = MAP[num.group(0)][None]
            return self.link(page, anchor)
        if REF_SHEET in path:
            return self.link('accountants.md', 'sampled-gaussian-rdp')
        if DL4J_NOTES in path:
            return self.link('dl4j-internals.md', None)
        return self.link('README.md', None)

    def placeholder(self, m):
        page, _, anchor = m.group(1).partition('#')
        return self.link(page, anchor or None)


# Tests asserting that a message contains a cited item, e.g. contains("P9") or contains("§3.9.1", ...).
ASSERTED_ITEM = re.compile(r'(contains\((?:[^()"]*"[^"]*",\s*)*")(P\d+|§\d+(?:\.\d+)*)"')
PLACEHOLDER = re.compile(r'\{\{([\w.-]+\.md(?:#[\w-]+)?)\}\}')
# The same reference twice in a row (several notes cited together that now point to one section).
REPEATED = re.compile(r'((?:\[)?docs/[\w.-]+\.md#[\w-]+(?:\]\([^)\s]+\))?)(?:[ \t]*[,;][ \t]*(?:\n[ \t]*\*[ \t]*)?\1(?![\w-]))+')

LEFTOVER = re.compile(WORKSPACE + '|(?i:' + WORD + r') 00\d|' + WORD + r's?/|' + REF_SHEET + r'\.md|' + DESIGN + r'\.md|' + DL4J_NOTES)
SKIP_DIRS = {'.git', 'target', 'node_modules', '.cache', '.idea'}


def files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith('.'))
        rel = os.path.relpath(dirpath, root)
        if rel == 'docs' or rel.startswith('docs' + os.sep):
            continue
        for name in sorted(filenames):
            if name.endswith('.java') or name.endswith('.md'):
                yield os.path.join(dirpath, name)


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if not a.startswith('--')]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), '..'))
    changed_files = changed_lines = 0
    leftovers = []
    for path in files(root):
        with open(path, encoding='utf-8') as f:
            old = f.read()
        new = Rewriter(root, path, old).run()
        rel = os.path.relpath(path, root)
        if new != old:
            changed_files += 1
            old_lines, new_lines = old.split('\n'), new.split('\n')
            import difflib
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines).get_opcodes():
                if tag == 'equal':
                    continue
                for k in range(i1, i2):
                    print('%s:%d: - %s' % (rel, k + 1, old_lines[k].strip()))
                for k in range(j1, j2):
                    print('%s:%d: + %s' % (rel, k + 1, new_lines[k].strip()))
                    changed_lines += 1
            if not check:
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(new)
        for k, line in enumerate(new.split('\n')):
            if LEFTOVER.search(line):
                leftovers.append('%s:%d: %s' % (rel, k + 1, line.strip()))
    verb = 'would change' if check else 'changed'
    print('%s %d lines in %d files' % (verb, changed_lines, changed_files), file=sys.stderr)
    for line in leftovers:
        print('NOT REWRITTEN ' + line, file=sys.stderr)
    if leftovers:
        return 2
    return 1 if check and changed_files else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
