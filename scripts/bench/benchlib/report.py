"""The printed table: absolute figures, ratios (this project / the peer), and the issue's goals."""


def _f(value, digits: int = 1) -> str:
    if value is None or value != value:
        return "n/a"
    return f"{value:,.{digits}f}"


def _ratio(ours, theirs) -> float | None:
    if ours is None or theirs in (None, 0):
        return None
    return ours / theirs


def _r(value) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" if value < 0.1 else f"{value:.2f}"


def cold_section(cold: dict) -> list[str]:
    lines = ["### Cold invocations (fresh process, one event on stdin)", "",
             "| case | runs | to response, median / p90 ms | to exit, median / p90 ms | peak RSS MiB | CPU ms (10 ms ticks) |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for row in cold.values():
        lines.append(f"| {row['label']} | {row['runs']} | {_f(row['first_ms']['median'])} / {_f(row['first_ms']['p90'])} "
                     f"| {_f(row['exit_ms']['median'])} / {_f(row['exit_ms']['p90'])} | {_f(row['rss_mib']['median'])} "
                     f"| {_f(row['cpu_ms']['median'])} |")
    lines += ["", "| ratio (Swift / Python) | to response | to exit | peak RSS |", "| --- | ---: | ---: | ---: |"]
    for ours, theirs, name in (("swift-store-moto", "peer-store-moto", "store-tokens"), ("swift-profile-moto", "peer-profile-moto", "user-profile")):
        a, b = cold[ours], cold.get(theirs, dict.fromkeys(("first_ms", "exit_ms", "rss_mib"), {"median": None}))  # no peer: n/a
        lines.append(f"| {name} | {_r(_ratio(a['first_ms']['median'], b['first_ms']['median']))} "
                     f"| {_r(_ratio(a['exit_ms']['median'], b['exit_ms']['median']))} "
                     f"| {_r(_ratio(a['rss_mib']['median'], b['rss_mib']['median']))} |")
    embedded, floor = cold["swift-store-embedded"], cold["floor"]
    lines.append(f"| store-tokens on the embedded store / the minimal Swift program (to exit) "
                 f"| | {_r(_ratio(embedded['exit_ms']['median'], floor['exit_ms']['median']))} | |")
    if "curl-floor" in cold:  # its "response" is its exit: curl prints nothing
        store, curl = cold["swift-store-moto"], cold["curl-floor"]
        lines.append(f"| store-tokens on moto / the curl floor (ours to response, curl to exit) "
                     f"| {_r(_ratio(store['first_ms']['median'], curl['exit_ms']['median']))} | | |")
    return lines


def warm_section(warm: dict) -> list[str]:
    lines = ["### Warm invocations (one process; ours in its Runtime API loop, the peer in-process)", "",
             "| loop | Swift inv/s | Python inv/s | Swift CPU ms/call | Python CPU ms/call | CPU ratio | moto CPU ms/call (Swift / Python) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for phase, ours in warm["swift"].items():
        theirs = warm["python"].get(phase, {})
        lines.append(f"| {phase} | {_f(ours['per_second'], 0)} | {_f(theirs.get('per_second'), 0)} | {_f(ours['cpu_ms_per_call'], 2)} "
                     f"| {_f(theirs.get('cpu_ms_per_call'), 2)} | {_r(_ratio(ours['cpu_ms_per_call'], theirs.get('cpu_ms_per_call')))} "
                     f"| {_f(ours['moto_cpu_ms_per_call'], 1)} / {_f(theirs.get('moto_cpu_ms_per_call'), 1)} |")
    return lines


def _handshake_cell(figures: dict | None) -> str:
    if not figures or "handshakes_per_call" not in figures:
        return "n/a"
    tls = figures["tls"]
    parts = " / ".join(f"{tls.get(name, {}).get('handshakes', 0)}" for name in ("aws", "google"))
    return f"{_f(figures['handshakes_per_call'], 2)} ({parts})"


def tls_section(warm: dict | None, refresh: dict | None) -> list[str]:
    """New TLS handshakes counted at nginx: a request that is its connection's first."""
    lines = ["### New TLS handshakes (counted at nginx: requests that were their connection's first)", "",
             "| loop | calls | Swift handshakes per call (AWS / Google, total) | Python handshakes per call (AWS / Google, total) "
             "| Swift TLS requests per call | Python TLS requests per call |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for phase, ours in (warm or {}).get("swift", {}).items():
        theirs = warm["python"].get(phase)
        lines.append(f"| {phase} | {ours['calls']:.0f} | {_handshake_cell(ours)} | {_handshake_cell(theirs)} "
                     f"| {_f(ours.get('tls_requests_per_call'), 2)} | {_f((theirs or {}).get('tls_requests_per_call'), 2)} |")
        for side, figures in (("Swift", ours), ("Python", theirs)):
            first = (figures or {}).get("first_calls")
            if first:
                def cell(tls: dict, total: int) -> str:
                    return f"{total} ({' / '.join(str(tls.get(name, {}).get('handshakes', 0)) for name in ('aws', 'google'))})"
                text = (f"first: {cell(first['tls'], first['handshakes'])}; "
                        f"next {first['calls'] - 1}: {cell(first.get('then_tls', {}), first.get('then_handshakes', 0))}")
                lines.append(f"| {side}, the process's first {first['calls']} invocations (before {phase}), totals | {first['calls']} "
                             f"| {text if side == 'Swift' else ''} | {text if side == 'Python' else ''} | | |")
    for count, per_side in (refresh or {}).items():
        for side, row in per_side.items():
            if "tls" not in row:
                continue
            tls = row["tls"]
            total = sum(e["handshakes"] for e in tls.values())
            requests = sum(e["requests"] for e in tls.values())
            per = " / ".join(str(tls.get(name, {}).get("handshakes", 0)) for name in ("aws", "google"))
            label = {"swift-dynamodb": "swift, DynamoDB + KMS"}.get(side, side)
            lines.append(f"| refresh run of {int(count):,} grants, {label} (first run; per grant) | {int(count):,} "
                         f"| {_f(total / int(count), 3) + ' (' + per + ', ' + str(total) + ')' if side.startswith('swift') else ''} "
                         f"| {_f(total / int(count), 3) + ' (' + per + ', ' + str(total) + ')' if side == 'python' else ''} "
                         f"| {_f(requests / int(count), 2) if side.startswith('swift') else ''} | {_f(requests / int(count), 2) if side == 'python' else ''} |")
    return lines


def _answers(answers: dict) -> str:
    return "; ".join(f"{endpoint} " + ", ".join(f"{status} x{n}" for status, n in counts.items())
                     for endpoint, counts in answers.items() if endpoint != "runtime")


def floor_section(warm: dict | None, warm_floor: dict | None, refresh: dict | None, refresh_floor: dict | None, tls: bool) -> list[str]:
    lines = [f"### The exchange floor of our calls ({'HTTPS' if tls else 'plain HTTP'}): our recorded requests replayed through "
             "libcurl, one reused easy handle", "",
             "| loop | ours CPU ms/call | floor CPU ms/call | ours / floor | requests per call | floor's new connections per call "
             "| floor's answers (status x count) | our run's answers |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for phase, row in (warm_floor or {}).items():
        ours = (warm or {}).get("swift", {}).get(phase, {}).get("cpu_ms_per_call")
        lines.append(f"| {phase} | {_f(ours, 2)} | {_f(row['cpu_ms_per_call'], 3)} | {_r(_ratio(ours, row['cpu_ms_per_call']))} x "
                     f"| {_f(row['requests_per_call'], 2)} | {_f(row['new_connections_per_call'], 2)} | {_answers(row['answers'])} "
                     f"| {_answers(row['captured_answers'])} |")
    if refresh_floor:
        count = refresh_floor["count"]
        ours = (refresh or {}).get(str(count), {}).get("swift", {}).get("cpu_ms_per_grant")
        lines.append(f"| refresh, per grant ({count:,} due) | {_f(ours, 2)} | {_f(refresh_floor['cpu_ms_per_call'], 3)} "
                     f"| {_r(_ratio(ours, refresh_floor['cpu_ms_per_call']))} x | {_f(refresh_floor['requests_per_call'], 2)} "
                     f"| {_f(refresh_floor['new_connections_per_call'], 3)} | {_answers(refresh_floor['answers'])} "
                     f"| {_answers(refresh_floor['captured_answers'])} |")
    lines += ["", "Ours: the process's utime + stime from /proc (10 ms ticks: resolution 10 ms / calls), per refreshed grant "
              "the whole fresh process's (its start included); the floor: getrusage around the replay of the same requests "
              "(Runtime API exchanges included), in order, on one handle, moto in the same state (warm loops: reset and "
              "seeded again; the refresh: not reset, so a write already done can be refused)."]
    return lines


def refresh_section(refresh: dict, paced: dict | None, settings: dict) -> list[str]:
    lines = [f"### Refresh runs (one fresh process, all grants due; REFRESH_CONCURRENCY={settings['concurrency']} on both sides, "
             f"our REFRESH_MAX_WRITES_PER_SECOND={settings['writes_per_second']})", "",
             "| grants | side | runs | wall s | grants/s | CPU ms/grant | peak RSS MiB | moto CPU ms/grant | verified |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    labels = {"swift-dynamodb": "swift, DynamoDB + KMS"}
    for count, sides in refresh.items():
        for side, row in sides.items():
            lines.append(f"| {int(count):,} | {labels.get(side, side)} | {len(row['runs'])} | {_f(row['wall_s'])} | {_f(row['grants_per_s'], 0)} "
                         f"| {_f(row['cpu_ms_per_grant'], 2)} | {_f(row['peak_rss_mib'])} | {_f(row['moto_cpu_ms_per_grant'], 1)} "
                         f"| {'yes' if row['verified'] else 'NO'} |")
    if paced:
        lines.append(f"| {paced['count']:,} | swift, paced at {paced['writes_per_second']} writes/s | {len(paced['runs'])} "
                     f"| {_f(paced['wall_s'])} | {_f(paced['grants_per_s'], 0)} | {_f(paced['cpu_ms_per_grant'], 2)} "
                     f"| {_f(paced['peak_rss_mib'])} | {_f(paced['moto_cpu_ms_per_grant'], 1)} | {'yes' if paced['verified'] else 'NO'} |")
    if not any("python" in sides for sides in refresh.values()):
        return lines  # no peer: no ratios
    lines += ["", "| grants | ours, against the peer on Secrets Manager | throughput ratio (Swift / Python) | CPU per grant ratio "
              "| Swift process busy (CPU s / wall s) | moto busy |",
              "| ---: | --- | ---: | ---: | ---: | ---: |"]
    for count, sides in refresh.items():
        theirs = sides.get("python")
        for side, store in (("swift", "Secrets Manager"), ("swift-dynamodb", "DynamoDB + KMS")):
            ours = sides.get(side)
            if not ours or not theirs:
                continue
            lines.append(f"| {int(count):,} | {store} | {_r(_ratio(ours['grants_per_s'], theirs['grants_per_s']))} "
                         f"| {_r(_ratio(ours['cpu_ms_per_grant'], theirs['cpu_ms_per_grant']))} "
                         f"| {_f(ours['cpu_ms_per_grant'] * ours['grants_per_s'] / 1000, 2)} "
                         f"| {_f(ours['moto_cpu_ms_per_grant'] * ours['grants_per_s'] / 1000, 2)} |")
    return lines


def bundle_section(rows: list[dict]) -> list[str]:
    lines = ["### Deployment bundles (.build-lambda/bundles/*.zip)", "", "| bundle | zipped MiB | unzipped MiB |", "| --- | ---: | ---: |"]
    if not rows:
        return lines + ["| n/a (no bundles built: scripts/bundle.sh has not run) | n/a | n/a |"]
    return lines + [f"| {row['bundle']} | {_f(row['zipped_mib'])} | {_f(row['unzipped_mib'])} |" for row in rows]


def goals(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(figure, goal, measured, holds) for the issue's table; holds is None when not measured."""
    rows: list[tuple[str, str, str, bool | None]] = []
    cold, warm, refresh, bundles = results.get("cold"), results.get("warm"), results.get("refresh"), results.get("bundles")
    if cold and "peer-store-moto" in cold:
        ratio = _ratio(cold["swift-store-moto"]["first_ms"]["median"], cold["peer-store-moto"]["first_ms"]["median"])
        rows.append(("cold store-tokens on moto, median wall", "<= 1/10 of the peer", f"{_r(ratio)} (to response)", ratio <= 0.1))
    if cold:
        ratio = _ratio(cold["swift-store-embedded"]["exit_ms"]["median"], cold["floor"]["exit_ms"]["median"])
        rows.append(("cold store-tokens on the embedded store, median wall", "<= 2 x the minimal Swift program", f"{_r(ratio)} x", ratio <= 2))
    if cold and "peer-store-moto" in cold:
        ratio = max(_ratio(cold[a]["rss_mib"]["median"], cold[b]["rss_mib"]["median"])
                    for a, b in (("swift-store-moto", "peer-store-moto"), ("swift-profile-moto", "peer-profile-moto")))
        rows.append(("peak RSS of a cold invocation", "<= 1/3 of the peer", f"{_r(ratio)} (worse of the two)", ratio <= 1 / 3))
    if warm and warm["python"]:
        ratio = max(_ratio(warm["swift"][p]["cpu_ms_per_call"], warm["python"][p]["cpu_ms_per_call"]) for p in warm["swift"] if p in warm["python"])
        rows.append(("handler CPU per warm call", "<= 1/10 of the peer", f"{_r(ratio)} (worst loop)", ratio <= 0.1))
    if refresh and all("swift" in s and "python" in s for s in refresh.values()):
        ratio = max(_ratio(s["swift"]["cpu_ms_per_grant"], s["python"]["cpu_ms_per_grant"]) for s in refresh.values())
        rows.append(("CPU per refreshed grant", "<= 1/10 of the peer", f"{_r(ratio)} (worst count)", ratio <= 0.1))
        ratios = {c: _ratio(s["swift"]["grants_per_s"], s["python"]["grants_per_s"]) for c, s in refresh.items()}
        busy = {c: s["swift"]["cpu_ms_per_grant"] * s["swift"]["grants_per_s"] / 1000 for c, s in refresh.items()}
        holds = all(r >= 1 for r in ratios.values()) and all(b < 0.5 for b in busy.values())
        rows.append(("refresh throughput at each count", ">= the peer's, not limited by this process",
                     ", ".join(f"{int(c):,}: {_r(r)} x, process {busy[c]:.2f} CPU" for c, r in ratios.items()), holds))
        counts = sorted(refresh, key=int)
        if len(counts) >= 2:
            small, large = refresh[counts[0]]["swift"]["peak_rss_mib"], refresh[counts[-1]]["swift"]["peak_rss_mib"]
            growth = large / small - 1
            rows.append((f"peak RSS of a refresh run, {int(counts[-1]):,} vs {int(counts[0]):,} grants", "within 20 %",
                         f"{growth * 100:+.0f} % ({small:.1f} -> {large:.1f} MiB)", abs(growth) <= 0.2))
    if bundles is not None:
        if bundles:
            worst = max(row["zipped_mib"] for row in bundles)
            rows.append(("zipped bundle per function", "<= 20 MB", f"largest {worst * 2**20 / 1e6:.1f} MB", worst * 2**20 / 1e6 <= 20))
        else:
            rows.append(("zipped bundle per function", "<= 20 MB", "n/a (no bundles built)", None))
    return rows


def markdown(results: dict) -> str:
    m = results["machine"]
    lines = [f"Run {m['started']} on {m['nproc']} cores (load {' '.join(m['loadavg_at_start'])} at start, "
             f"{' '.join(m.get('loadavg_at_end', ['?']))} at end), {m['swift']}, Python {m['python']}; "
             f"one moto_server and the bench's fake Google on loopback"
             f"{', behind nginx over HTTPS (TLS mode)' if results.get('settings', {}).get('tls') else ', plain HTTP'}; "
             f"{'quick mode' if results['quick'] else 'full run'}.", ""]
    if not results.get("settings", {}).get("peer"):
        lines += ["No peer given (--peer DIR): the Python + boto3 comparison was not run.", ""]
    if "cold" in results:
        lines += cold_section(results["cold"]) + [""]
    if "warm" in results:
        lines += warm_section(results["warm"]) + [""]
    if "refresh" in results:
        lines += refresh_section(results["refresh"], results.get("refresh_paced"), results["settings"]) + [""]
    if results.get("settings", {}).get("tls") and ("warm" in results or "refresh" in results):
        lines += tls_section(results.get("warm"), results.get("refresh")) + [""]
    if "warm_floor" in results or "refresh_floor" in results:
        lines += floor_section(results.get("warm"), results.get("warm_floor"), results.get("refresh"), results.get("refresh_floor"),
                               bool(results.get("settings", {}).get("tls"))) + [""]
    if "bundles" in results:
        lines += bundle_section(results["bundles"]) + [""]
    rows = goals(results)
    if rows:
        lines += ["### Goals (issue 7), from this run", "", "| figure | goal | measured | holds |", "| --- | --- | --- | --- |"]
        lines += [f"| {a} | {b} | {c} | {'n/a' if d is None else ('yes' if d else '**no**')} |" for a, b, c, d in rows]
    return "\n".join(lines) + "\n"
