"""The report: results.md's tables (absolute figures, ratios of this project to the peer, the
goals of issue 7) and performance.png (cold start and refresh throughput, ours beside the peer)."""

NA = {"median": None}
SIDE_LABELS = {"swift-dynamodb": "swift, DynamoDB + KMS"}
FLOOR_NOTE = (
    "Ours: the process's utime + stime from /proc (10 ms ticks: resolution 10 ms / calls), per "
    "refreshed grant the whole fresh process's (its start included); the floor: getrusage around "
    "the replay of the same requests (Runtime API exchanges included), in order, on one handle, "
    "moto in the same state (warm loops: reset and seeded again; the refresh: not reset, so a "
    "write already done can be refused).")


def _f(value, digits: int = 1) -> str:
    return "n/a" if value is None or value != value else f"{value:,.{digits}f}"


def _ratio(ours, theirs) -> float | None:
    return None if ours is None or theirs in (None, 0) else ours / theirs


def _r(value) -> str:
    return "n/a" if value is None else f"{value:.3f}" if value < 0.1 else f"{value:.2f}"


def _table(title: str | None, header: str, rows: list[list], after=()) -> list[str]:
    """A markdown table under a `### title`: `header` its columns ("name|name:" for a right
    aligned one), then its rows' cells, then the lines `after` it."""
    columns = [c.rstrip(":") for c in header.split("|")]
    rules = ["---:" if c.endswith(":") else "---" for c in header.split("|")]
    lines = [f"### {title}", ""] if title else []
    return lines + [f"| {' | '.join(map(str, cells))} |" for cells in [columns, rules, *rows]] + list(after)


def _by_endpoint(tls: dict) -> str:
    return " / ".join(str(tls.get(endpoint, {}).get("handshakes", 0)) for endpoint in ("aws", "google"))


def cold_section(cold: dict) -> list[str]:
    rows = [[row["label"], row["runs"], *(f"{_f(row[k]['median'])} / {_f(row[k]['p90'])}"
                                         for k in ("first_ms", "exit_ms")),
             _f(row["rss_mib"]["median"]), _f(row["cpu_ms"]["median"])] for row in cold.values()]
    ratios = []
    for ours, theirs, name in (("swift-store-moto", "peer-store-moto", "store-tokens"),
                               ("swift-profile-moto", "peer-profile-moto", "user-profile")):
        them = cold.get(theirs, dict.fromkeys(("first_ms", "exit_ms", "rss_mib"), NA))  # no peer
        ratios.append([name, *(_r(_ratio(cold[ours][k]["median"], them[k]["median"]))
                               for k in ("first_ms", "exit_ms", "rss_mib"))])
    embedded = _ratio(cold["swift-store-embedded"]["exit_ms"]["median"], cold["floor"]["exit_ms"]["median"])
    ratios.append(["store-tokens on the embedded store / the minimal Swift program (to exit)", "",
                   _r(embedded), ""])
    if "curl-floor" in cold:  # its "response" is its exit: curl prints nothing
        curl = _ratio(cold["swift-store-moto"]["first_ms"]["median"], cold["curl-floor"]["exit_ms"]["median"])
        ratios.append(["store-tokens on moto / the curl floor (ours to response, curl to exit)",
                       _r(curl), "", ""])
    return (_table("Cold invocations (fresh process, one event on stdin)",
                   "case|runs:|to response, median / p90 ms:|to exit, median / p90 ms:|"
                   "peak RSS MiB:|CPU ms (10 ms ticks):", rows, [""])
            + _table(None, "ratio (Swift / Python)|to response:|to exit:|peak RSS:", ratios))


def warm_section(warm: dict) -> list[str]:
    rows = []
    for phase, ours in warm["swift"].items():
        theirs = warm["python"].get(phase, {})
        rows.append([phase, _f(ours["per_second"], 0), _f(theirs.get("per_second"), 0),
                     _f(ours["cpu_ms_per_call"], 2), _f(theirs.get("cpu_ms_per_call"), 2),
                     _r(_ratio(ours["cpu_ms_per_call"], theirs.get("cpu_ms_per_call"))),
                     f"{_f(ours['moto_cpu_ms_per_call'])} / {_f(theirs.get('moto_cpu_ms_per_call'))}"])
    return _table("Warm invocations (one process; ours in its Runtime API loop, the peer in-process)",
                  "loop|Swift inv/s:|Python inv/s:|Swift CPU ms/call:|Python CPU ms/call:|"
                  "CPU ratio:|moto CPU ms/call (Swift / Python):", rows)


def tls_section(warm: dict | None, refresh: dict | None) -> list[str]:
    """New TLS handshakes counted at nginx: a request that is its connection's first."""
    rows = []
    for phase, ours in (warm or {}).get("swift", {}).items():
        theirs = warm["python"].get(phase) or {}
        cells = [f"{_f(f['handshakes_per_call'], 2)} ({_by_endpoint(f['tls'])})"
                 if "handshakes_per_call" in f else "n/a" for f in (ours, theirs)]
        rows.append([phase, f"{ours['calls']:.0f}", *cells, _f(ours.get("tls_requests_per_call"), 2),
                     _f(theirs.get("tls_requests_per_call"), 2)])
        for side, first in (("Swift", ours.get("first_calls")), ("Python", theirs.get("first_calls"))):
            if first:
                text = (f"first: {first['handshakes']} ({_by_endpoint(first['tls'])}); next "
                        f"{first['calls'] - 1}: {first['then_handshakes']} ({_by_endpoint(first['then_tls'])})")
                rows.append([f"{side}, the process's first {first['calls']} invocations (before {phase}), "
                             "totals", first["calls"], *((text, "") if side == "Swift" else ("", text)), "", ""])
    for count, per_side in (refresh or {}).items():
        for side, row in per_side.items():
            if "tls" in row:
                tls, grants = row["tls"], int(count)
                handshakes = sum(e["handshakes"] for e in tls.values())
                per = f"{_f(handshakes / grants, 3)} ({_by_endpoint(tls)}, {handshakes})"
                requests = _f(sum(e["requests"] for e in tls.values()) / grants, 2)
                ours = side.startswith("swift")
                rows.append([f"refresh run of {grants:,} grants, {SIDE_LABELS.get(side, side)} (first run; "
                             f"per grant)", f"{grants:,}", *((per, "", requests, "") if ours else
                                                              ("", per, "", requests))])
    return _table("New TLS handshakes (counted at nginx: requests that were their connection's first)",
                  "loop|calls:|Swift handshakes per call (AWS / Google, total):|Python handshakes per "
                  "call (AWS / Google, total):|Swift TLS requests per call:|Python TLS requests per call:",
                  rows)


def floor_section(results: dict) -> list[str]:
    def answers(by_endpoint: dict) -> str:
        return "; ".join(f"{endpoint} " + ", ".join(f"{status} x{n}" for status, n in counts.items())
                         for endpoint, counts in by_endpoint.items() if endpoint != "runtime")
    swift, refresh = (results.get("warm") or {}).get("swift", {}), results.get("refresh_floor")
    rows = [(phase, swift.get(phase, {}).get("cpu_ms_per_call"), row, 2)
            for phase, row in results.get("warm_floor", {}).items()]
    if refresh:
        ours = results.get("refresh", {}).get(str(refresh["count"]), {}).get("swift", {})
        rows.append((f"refresh, per grant ({refresh['count']:,} due)", ours.get("cpu_ms_per_grant"), refresh, 3))
    mode = "HTTPS" if results["settings"].get("tls") else "plain HTTP"
    return _table(f"The exchange floor of our calls ({mode}): our recorded requests replayed through "
                  "libcurl, one reused easy handle",
                  "loop|ours CPU ms/call:|floor CPU ms/call:|ours / floor:|requests per call:|"
                  "floor's new connections per call:|floor's answers (status x count)|our run's answers",
                  [[name, _f(ours, 2), _f(row["cpu_ms_per_call"], 3),
                    f"{_r(_ratio(ours, row['cpu_ms_per_call']))} x", _f(row["requests_per_call"], 2),
                    _f(row["new_connections_per_call"], digits), answers(row["answers"]),
                    answers(row["captured_answers"])] for name, ours, row, digits in rows],
                  ["", FLOOR_NOTE])


def refresh_section(refresh: dict, paced: dict | None, settings: dict) -> list[str]:
    def row(count, label, r) -> list:
        return [f"{int(count):,}", label, len(r["runs"]), _f(r["wall_s"]), _f(r["grants_per_s"], 0),
                _f(r["cpu_ms_per_grant"], 2), _f(r["peak_rss_mib"]), _f(r["moto_cpu_ms_per_grant"]),
                "yes" if r["verified"] else "NO"]
    rows = [row(count, SIDE_LABELS.get(side, side), r) for count, by_side in refresh.items()
            for side, r in by_side.items()]
    if paced:
        rows.append(row(paced["count"], f"swift, paced at {paced['writes_per_second']} writes/s", paced))
    lines = _table(f"Refresh runs (one fresh process, all grants due; REFRESH_CONCURRENCY="
                   f"{settings['concurrency']} on both sides, our REFRESH_MAX_WRITES_PER_SECOND="
                   f"{settings['writes_per_second']})", "grants:|side|runs:|wall s:|grants/s:|"
                   "CPU ms/grant:|peak RSS MiB:|moto CPU ms/grant:|verified", rows)
    if not any("python" in by_side for by_side in refresh.values()):
        return lines  # no peer: no ratios
    ratios = []
    for count, by_side in refresh.items():
        for side, store in (("swift", "Secrets Manager"), ("swift-dynamodb", "DynamoDB + KMS")):
            ours, theirs = by_side.get(side), by_side.get("python")
            if ours and theirs:
                ratios.append([f"{int(count):,}", store, _r(_ratio(ours["grants_per_s"], theirs["grants_per_s"])),
                               _r(_ratio(ours["cpu_ms_per_grant"], theirs["cpu_ms_per_grant"])),
                               _f(ours["cpu_ms_per_grant"] * ours["grants_per_s"] / 1000, 2),
                               _f(ours["moto_cpu_ms_per_grant"] * ours["grants_per_s"] / 1000, 2)])
    return lines + [""] + _table(None, "grants:|ours, against the peer on Secrets Manager|throughput "
                                 "ratio (Swift / Python):|CPU per grant ratio:|Swift process busy "
                                 "(CPU s / wall s):|moto busy:", ratios)


def bundle_section(rows: list[dict]) -> list[str]:
    cells = [[row["bundle"], _f(row["zipped_mib"]), _f(row["unzipped_mib"])] for row in rows]
    return _table("Deployment bundles (.build-lambda/bundles/*.zip)", "bundle|zipped MiB:|unzipped MiB:",
                  cells or [["n/a (no bundles built: scripts/bundle.sh has not run)", "n/a", "n/a"]])


def goals(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(figure, goal, measured, holds) for issue 7's table; holds is None when not measured."""
    rows = []
    cold, warm, refresh, bundles = (results.get(k) for k in ("cold", "warm", "refresh", "bundles"))

    def cold_ratio(ours: str, theirs: str, figure: str) -> float:
        return _ratio(cold[ours][figure]["median"], cold[theirs][figure]["median"])
    if cold and "peer-store-moto" in cold:
        ratio = cold_ratio("swift-store-moto", "peer-store-moto", "first_ms")
        rows.append(("cold store-tokens on moto, median wall", "<= 1/10 of the peer",
                     f"{_r(ratio)} (to response)", ratio <= 0.1))
    if cold:
        ratio = cold_ratio("swift-store-embedded", "floor", "exit_ms")
        rows.append(("cold store-tokens on the embedded store, median wall",
                     "<= 2 x the minimal Swift program", f"{_r(ratio)} x", ratio <= 2))
    if cold and "peer-store-moto" in cold:
        ratio = max(cold_ratio(f"swift-{k}-moto", f"peer-{k}-moto", "rss_mib") for k in ("store", "profile"))
        rows.append(("peak RSS of a cold invocation", "<= 1/3 of the peer",
                     f"{_r(ratio)} (worse of the two)", ratio <= 1 / 3))
    if warm and warm["python"]:
        ratio = max(_ratio(warm["swift"][p]["cpu_ms_per_call"], warm["python"][p]["cpu_ms_per_call"])
                    for p in warm["swift"] if p in warm["python"])
        rows.append(("handler CPU per warm call", "<= 1/10 of the peer", f"{_r(ratio)} (worst loop)", ratio <= 0.1))
    if refresh and all("swift" in s and "python" in s for s in refresh.values()):
        ratio = max(_ratio(s["swift"]["cpu_ms_per_grant"], s["python"]["cpu_ms_per_grant"])
                    for s in refresh.values())
        rows.append(("CPU per refreshed grant", "<= 1/10 of the peer", f"{_r(ratio)} (worst count)", ratio <= 0.1))
        ratios = {c: _ratio(s["swift"]["grants_per_s"], s["python"]["grants_per_s"]) for c, s in refresh.items()}
        busy = {c: s["swift"]["cpu_ms_per_grant"] * s["swift"]["grants_per_s"] / 1000 for c, s in refresh.items()}
        rows.append(("refresh throughput at each count", ">= the peer's, not limited by this process",
                     ", ".join(f"{int(c):,}: {_r(r)} x, process {busy[c]:.2f} CPU" for c, r in ratios.items()),
                     all(r >= 1 for r in ratios.values()) and all(b < 0.5 for b in busy.values())))
        counts = sorted(refresh, key=int)
        if len(counts) >= 2:
            small, large = (refresh[c]["swift"]["peak_rss_mib"] for c in (counts[0], counts[-1]))
            rows.append((f"peak RSS of a refresh run, {int(counts[-1]):,} vs {int(counts[0]):,} grants",
                         "within 20 %", f"{(large / small - 1) * 100:+.0f} % ({small:.1f} -> {large:.1f} MiB)",
                         abs(large / small - 1) <= 0.2))
    if bundles is not None:
        largest = max((row["zipped_mib"] * 2**20 / 1e6 for row in bundles), default=None)
        rows.append(("zipped bundle per function", "<= 20 MB", "n/a (no bundles built)" if largest is None
                     else f"largest {largest:.1f} MB", None if largest is None else largest <= 20))
    return rows


def markdown(results: dict) -> str:
    m, settings = results["machine"], results["settings"]
    lines = [f"Run {m['started']} on {m['nproc']} cores (load {' '.join(m['loadavg_at_start'])} at start, "
             f"{' '.join(m.get('loadavg_at_end', ['?']))} at end), {m['swift']}, Python {m['python']}; "
             f"one moto_server and the bench's fake Google on loopback"
             f"{', behind nginx over HTTPS (TLS mode)' if settings.get('tls') else ', plain HTTP'}; "
             f"{'quick mode' if results['quick'] else 'full run'}.", ""]
    if not settings.get("peer"):
        lines += ["No peer given (--peer DIR): the Python + boto3 comparison was not run.", ""]
    if "cold" in results:
        lines += cold_section(results["cold"]) + [""]
    if "warm" in results:
        lines += warm_section(results["warm"]) + [""]
    if "refresh" in results:
        lines += refresh_section(results["refresh"], results.get("refresh_paced"), settings) + [""]
    if settings.get("tls") and ("warm" in results or "refresh" in results):
        lines += tls_section(results.get("warm"), results.get("refresh")) + [""]
    if "warm_floor" in results or "refresh_floor" in results:
        lines += floor_section(results) + [""]
    if "bundles" in results:
        lines += bundle_section(results["bundles"]) + [""]
    rows = [[a, b, c, "n/a" if d is None else "yes" if d else "**no**"] for a, b, c, d in goals(results)]
    if rows:
        lines += _table("Goals (issue 7), from this run", "figure|goal|measured|holds", rows)
    return "\n".join(lines) + "\n"


def draw(results: dict, path: str) -> None:
    """The picture in docs/performance.md: cold invocations and refresh throughput on Secrets
    Manager, ours beside the peer's (a refresh panel only with both)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    refresh = results.get("refresh")
    if refresh and not all("swift" in s and "python" in s for s in refresh.values()):
        refresh = None
    cold = results.get("cold")
    panels = [p for p in (cold and "cold", refresh and "refresh") if p]
    if not panels:
        return
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    axes = dict(zip(panels, axes[0]))

    def bars(axis, labels, swift, python, unit):
        width = 0.38
        for offset, values, colour, name in ((-width / 2, swift, "#f05138", "Swift (this project)"),
                                             (width / 2, python, "#3572a5", "Python + boto3 (peer)")):
            if values:  # no peer: no Python bars
                drawn = axis.bar([p + (offset if python else 0) for p in range(len(labels))], values, width,
                                 color=colour, label=name)
                for bar, value in zip(drawn, values):
                    axis.annotate(f"{value:,.0f}{unit}" if value >= 10 else f"{value:.1f}{unit}",
                                  (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                                  va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
        axis.set_xticks(list(range(len(labels))), labels)
    if cold:
        axis, medians = axes["cold"], {k: row["first_ms"]["median"] for k, row in cold.items()}
        bars(axis, ["store-tokens", "user-profile"], [medians["swift-store-moto"], medians["swift-profile-moto"]],
             [medians[k] for k in ("peer-store-moto", "peer-profile-moto") if k in medians], " ms")
        floor = cold["floor"]["exit_ms"]["median"]
        axis.axhline(floor, color="#888888", linestyle="--", linewidth=1,
                     label=f"minimal Swift program ({floor:.1f} ms)")
        axis.set_yscale("log")
        tallest = max(medians[k] for k in ("peer-store-moto", "peer-profile-moto", "swift-store-moto") if k in medians)
        axis.set_ylim(top=tallest * 8)  # room for the legend above the bars
        axis.set_ylabel("median wall time to the response, ms (log)")
        axis.set_title(f"Cold invocation on moto ({cold['floor']['runs']} runs each)")
        axis.legend(fontsize=8, loc="upper left")
    if refresh:
        axis, counts = axes["refresh"], sorted(refresh, key=int)
        rates = {side: [refresh[c][side]["grants_per_s"] for c in counts] for side in ("swift", "python")}
        bars(axis, [f"{int(c):,} due grants" for c in counts], rates["swift"], rates["python"], "/s")
        axis.set_ylabel("grants refreshed per second (median)")
        axis.set_ylim(top=max(rates["swift"] + rates["python"]) * 1.3)
        axis.set_title("Refresh throughput (8 at a time, same moto)")
        axis.legend(fontsize=8, loc="upper right")
    peer = "vs the Python peer" if results["settings"].get("peer") else "(no peer given)"
    figure.suptitle(f"PayPulse Gmail Connect {peer}, {results['machine']['nproc']} shared cores, "
                    f"{results['machine']['started'][:10]}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
