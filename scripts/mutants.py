#!/usr/bin/env python3
"""Mutation run: would the tests notice a wrong decision?

Reads the reviewed list scripts/mutants.txt (its header says the format), plants every
mutant at once as a switch ("mutant schemata": `(mutantIs("ID") ? NEW : OLD)`), builds once,
then runs, for each mutant, the suites its entry names with PAYPULSE_MUTANT=ID (children the
suites spawn inherit it, so the built executables run the mutant too). A mutant is killed
when its suites fail (or run past --timeout), and survives when they pass. The sources are
restored however the run ends; the build folder keeps the mutated objects until the next
build recompiles the restored files.

Usage (under scripts/with-moto.sh, as `make mutants` runs it):
  scripts/mutants.py [--list FILE] [--only ID[,ID]] [--sample N] [--timeout S] [--check]
    --check   parse the list and locate every mutant in the sources; no build, no tests
    --sample  N mutants spread over the areas (the first of each area, then the second, ...)
Exit status: 1 when a mutant survives or a suite fails with no mutant active; 2 on a bad list.
"""
from __future__ import annotations

import argparse, os, re, signal, subprocess, sys, time
from collections import Counter
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SWITCH = '''
// Planted by scripts/mutants.py for a mutation run; restored when the run ends.
private let plantedMutant = ProcessInfo.processInfo.environment["PAYPULSE_MUTANT"] ?? ""
private func mutantIs(_ id: String) -> Bool { plantedMutant == id }
'''
FOUNDATION_IMPORT = re.compile(r'^\s*(@\w+\s+)*((public|package|internal)\s+)?import\s+Foundation\s*$', re.M)


@dataclass
class Mutant:
    ident: str
    title: str
    file: str
    tests: str
    kind: str
    at: str | None
    old: str
    new: str
    line: int = 0

    @property
    def area(self) -> str:
        return self.ident.rsplit('-', 1)[0]

    def replacement(self) -> str:
        if self.kind == 'expr':
            return f'(mutantIs("{self.ident}") ? ({self.new}) : ({self.old}))'
        return f'if mutantIs("{self.ident}") {{\n{self.new}\n}} else {{\n{self.old}\n}}'


class ListError(Exception):
    pass


# Per file: its text as read, and each mutant's span in it.
Plans = dict[str, tuple[str, list[tuple[int, int, Mutant]]]]


def parse(path: Path) -> list[Mutant]:
    mutants: list[Mutant] = []
    for block in re.split(r'\n\s*\n', path.read_text()):
        lines = [line for line in block.splitlines() if not (line.startswith('#') and not line.startswith('## '))]
        if not lines:
            continue
        head = lines[0]
        match = re.fullmatch(r'## ([a-z]+-\d+) \| (.+)', head)
        if not match:
            raise ListError(f'{path.name}: a block must start with "## area-NN | title", not {head!r}')
        fields: dict[str, str] = {}
        text: dict[str, list[str]] = {'-': [], '+': []}  # the original and the mutated lines
        for line in lines[1:]:
            if line[:2] in ('- ', '+ ') or line in ('-', '+'):
                text[line[0]].append(line[2:])
            elif re.match(r'^(file|tests|kind|at): ', line):
                key, value = line.split(': ', 1)
                fields[key] = value
            else:
                raise ListError(f'{match[1]}: unreadable line {line!r}')
        for key in ('file', 'tests', 'kind'):
            if key not in fields:
                raise ListError(f'{match[1]}: no {key}:')
        if fields['kind'] not in ('expr', 'stmt'):
            raise ListError(f'{match[1]}: kind must be expr or stmt')
        if not text['-'] or (fields['kind'] == 'expr' and not ''.join(text['+']).strip()):
            raise ListError(f'{match[1]}: needs - lines (and + lines for an expr)')
        mutants.append(Mutant(match[1], match[2], fields['file'], fields['tests'], fields['kind'],
                              fields.get('at'), '\n'.join(text['-']), '\n'.join(text['+'])))
    duplicates = sorted(ident for ident, n in Counter(m.ident for m in mutants).items() if n > 1)
    if duplicates:
        raise ListError(f'duplicate ids: {duplicates}')
    return mutants


def locate(mutants: list[Mutant]) -> Plans:
    """Finds each mutant's span in its file; refuses ambiguous or overlapping ones."""
    plans: Plans = {}
    for mutant in mutants:
        path = ROOT / mutant.file
        if not path.is_file():
            raise ListError(f'{mutant.ident}: no file {mutant.file}')
        text, spans = plans.setdefault(mutant.file, (path.read_text(), []))
        anchor = mutant.at if mutant.at is not None else mutant.old
        count = text.count(anchor)
        if count != 1:
            what = 'at:' if mutant.at else 'the - text'
            raise ListError(f'{mutant.ident}: {what} occurs {count} times in {mutant.file}')
        base = text.index(anchor)
        inner = anchor.find(mutant.old)
        if inner < 0:
            raise ListError(f'{mutant.ident}: the - text is not inside the at: text')
        start = base + inner
        end = start + len(mutant.old)
        for other_start, other_end, other in spans:
            if start < other_end and other_start < end:
                raise ListError(f'{mutant.ident} overlaps {other.ident} in {mutant.file}')
        mutant.line = text.count('\n', 0, start) + 1
        spans.append((start, end, mutant))
    return plans


def plant(plans: Plans) -> None:
    for file, (text, spans) in plans.items():
        mutated = text
        for start, end, mutant in sorted(spans, key=lambda span: span[0], reverse=True):
            mutated = mutated[:start] + mutant.replacement() + mutated[end:]
        if not FOUNDATION_IMPORT.search(mutated):
            mutated = 'import Foundation\n' + mutated
        (ROOT / file).write_text(mutated + SWITCH)


def restore(plans: Plans) -> None:
    for file, (text, _) in plans.items():
        (ROOT / file).write_text(text)


def run(command: list[str], env: dict[str, str], timeout: float, log: Path) -> tuple[str, float]:
    """Runs `command`; answers passed, failed or timeout, and the seconds it took."""
    started = time.monotonic()
    with log.open('w') as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
            outcome = 'passed' if status == 0 else 'failed'
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            outcome = 'timeout'
    return outcome, time.monotonic() - started


def ran_tests(log: Path) -> bool:
    """Whether the run executed at least one test (a filter matching nothing passes too)."""
    text = log.read_text(errors='replace')
    return any(int(n) > 0 for n in re.findall(r'(?:Test run with|Executed) (\d+) tests?', text))


def sample(mutants: list[Mutant], size: int) -> list[Mutant]:
    """`size` mutants: the first of each area, then the second of each, and so on."""
    by_area: dict[str, list[Mutant]] = {}
    for mutant in mutants:
        by_area.setdefault(mutant.area, []).append(mutant)
    ranks = zip_longest(*by_area.values())
    return [mutant for rank in ranks for mutant in rank if mutant is not None][:size]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--list', default=str(ROOT / 'scripts/mutants.txt'))
    parser.add_argument('--only', default='')
    parser.add_argument('--sample', type=int, default=0)
    parser.add_argument('--timeout', type=float, default=600)
    parser.add_argument('--check', action='store_true')
    parser.add_argument('--out', default=str(ROOT / '.build/mutants'))
    args = parser.parse_args()
    try:
        mutants = parse(Path(args.list))
        plans = locate(mutants)
    except ListError as error:
        print(f'mutants: {error}', file=sys.stderr)
        return 2
    chosen = mutants
    if args.only:
        wanted = set(args.only.split(','))
        chosen = [m for m in mutants if m.ident in wanted]
    elif args.sample:
        chosen = sample(mutants, args.sample)
    counts = sorted(Counter(m.area for m in mutants).items())
    per_area = ', '.join(f'{area} {n}' for area, n in counts)
    print(f'mutants: {len(mutants)} in the list ({per_area}); running {len(chosen)}')
    if args.check:
        return 0
    if 'PAYPULSE_TEST_MOTO_ENDPOINT' not in os.environ:
        print('mutants: run under scripts/with-moto.sh (make mutants does)', file=sys.stderr)
        return 2

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop('PAYPULSE_MUTANT', None)
    # Every chosen mutant is planted in one build (only their files: fewer modules recompile
    # for a sample): restore the sources however the run ends.
    plans = locate(chosen)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: sys.exit(130))
    try:
        plant(plans)
        started = time.monotonic()
        build = subprocess.run(['swift', 'build', '--build-tests'], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if build.returncode != 0:
            print(build.stdout[-6000:])
            print('mutants: the planted build failed (above): a mutant of the list does not compile', file=sys.stderr)
            return 2
        print(f'mutants: planted build in {time.monotonic() - started:.0f} s')
    finally:
        restore(plans)

    # With no mutant active, each chosen filter must run tests and pass: a mutant "killed" by
    # a suite that fails anyway, or that matches no test, proves nothing.
    union = '|'.join(sorted({m.tests for m in chosen}))
    baseline_log = out / 'baseline.log'
    outcome, seconds = run(['scripts/swift-test.sh', '--filter', union], env, args.timeout * 2, baseline_log)
    if outcome != 'passed':
        print(f'mutants: with no mutant active the suites {outcome} ({baseline_log})', file=sys.stderr)
        return 1
    listed = subprocess.run(['scripts/swift-test.sh', '--list-tests'], cwd=ROOT, env=env, capture_output=True, text=True).stdout
    unmatched = [m.ident for m in chosen if not re.search(m.tests, listed)]
    if unmatched:
        print(f'mutants: tests: names no test for {", ".join(unmatched)}', file=sys.stderr)
        return 2
    print(f'mutants: baseline passed in {seconds:.0f} s')

    results: list[tuple[Mutant, str]] = []
    for mutant in chosen:
        log = out / f'{mutant.ident}.log'
        outcome, seconds = run(['scripts/swift-test.sh', '--filter', mutant.tests],
                               {**env, 'PAYPULSE_MUTANT': mutant.ident}, args.timeout, log)
        verdict = {'failed': 'killed', 'timeout': 'killed (timeout)', 'passed': 'SURVIVED'}[outcome]
        if outcome == 'passed' and not ran_tests(log):
            verdict = 'SURVIVED (no test ran)'
        results.append((mutant, verdict))
        print(f'{mutant.ident:<14} {verdict:<17} {seconds:5.0f} s  {mutant.file}:{mutant.line}  '
              f'{mutant.title}', flush=True)

    survivors = [m for m, verdict in results if verdict.startswith('SURVIVED')]
    print()
    for area in sorted({m.area for m, _ in results}):
        ran = [verdict for m, verdict in results if m.area == area]
        killed = sum(not verdict.startswith('SURVIVED') for verdict in ran)
        print(f'mutants: {area:<9} {killed}/{len(ran)} killed')
    print(f'mutants: score {len(results) - len(survivors)}/{len(results)} killed, '
          f'{len(survivors)} survived')
    for m in survivors:
        print(f'  survivor {m.ident}: {m.title} ({m.file}:{m.line}; tests {m.tests})')
    return 1 if survivors else 0


if __name__ == '__main__':
    sys.exit(main())
