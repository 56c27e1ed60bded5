"""The report: results.md's tables (our figures, their ratios to the peer's, issue 7's goals)
and performance.png (cold start and refresh throughput, ours beside the peer's)."""

FIGURES = ("first_ms", "exit_ms", "rss_mib")  # a cold case's, medians in the ratios
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


def _table(title: str | None, header: str, rows: list[list]) -> list[str]:
    """A markdown table under `### title`: `header` names its columns, separated by "|", a
    right-aligned one ending with ":"."""
    columns = header.split("|")
    rules = ["---:" if column.endswith(":") else "---" for column in columns]
    lines = [[c.rstrip(":") for c in columns], rules, *rows]
    head = [f"### {title}", ""] if title else []
    return head + [f"| {' | '.join(map(str, cells))} |" for cells in lines]


def _handshakes(tls: dict) -> str:
    return " / ".join(str(tls.get(end, {}).get("handshakes", 0)) for end in ("aws", "google"))


def _answers(by_endpoint: dict) -> str:
    return "; ".join(f"{end} " + ", ".join(f"{status} x{n}" for status, n in counts.items())
                     for end, counts in by_endpoint.items() if end != "runtime")


def _ours_theirs(ours: bool, *cells: str) -> list[str]:
    """Cells in the Swift columns, or in the Python ones beside them."""
    return [cell for c in cells for cell in ((c, "") if ours else ("", c))]


class Report:
    def __init__(self, results: dict):
        self.results, self.settings = results, results["settings"]
        self.cold, self.warm, self.refresh = (results.get(k) for k in ("cold", "warm", "refresh"))

    def _cold_ratio(self, ours: str, theirs: str, figure: str) -> float | None:
        median = self.cold.get(theirs, {}).get(figure, {}).get("median")  # no peer: None
        return _ratio(self.cold[ours][figure]["median"], median)

    def cold_section(self) -> list[str]:
        rows = [[row["label"], row["runs"],
                 *(f"{_f(row[k]['median'])} / {_f(row[k]['p90'])}" for k in FIGURES[:2]),
                 *(_f(row[k]["median"]) for k in ("rss_mib", "cpu_ms"))]
                for row in self.cold.values()]
        ratios = [[name, *(_r(self._cold_ratio(f"swift-{k}-moto", f"peer-{k}-moto", figure))
                           for figure in FIGURES)]
                  for k, name in (("store", "store-tokens"), ("profile", "user-profile"))]
        embedded = _r(self._cold_ratio("swift-store-embedded", "floor", "exit_ms"))
        ratios.append(["store-tokens on the embedded store / the minimal Swift program (to exit)",
                       "", embedded, ""])
        if "curl-floor" in self.cold:  # its "response" is its exit: curl prints nothing
            curl = _ratio(self.cold["swift-store-moto"]["first_ms"]["median"],
                          self.cold["curl-floor"]["exit_ms"]["median"])
            ratios.append(["store-tokens on moto / the curl floor (ours to response, curl to exit)",
                           _r(curl), "", ""])
        return _table("Cold invocations (fresh process, one event on stdin)",
                      "case|runs:|to response, median / p90 ms:|to exit, median / p90 ms:|"
                      "peak RSS MiB:|CPU ms (10 ms ticks):", rows) + [""] + _table(
            None, "ratio (Swift / Python)|to response:|to exit:|peak RSS:", ratios)

    def warm_section(self) -> list[str]:
        rows = []
        for phase, ours in self.warm["swift"].items():
            theirs = self.warm["python"].get(phase, {})
            cpu = ours["cpu_ms_per_call"], theirs.get("cpu_ms_per_call")
            moto = " / ".join(_f(f.get("moto_cpu_ms_per_call")) for f in (ours, theirs))
            rows.append([phase, _f(ours["per_second"], 0), _f(theirs.get("per_second"), 0),
                         _f(cpu[0], 2), _f(cpu[1], 2), _r(_ratio(*cpu)), moto])
        return _table("Warm invocations (one process; ours in its Runtime API loop, the peer "
                      "in-process)", "loop|Swift inv/s:|Python inv/s:|Swift CPU ms/call:|"
                      "Python CPU ms/call:|CPU ratio:|moto CPU ms/call (Swift / Python):", rows)

    def tls_section(self) -> list[str]:
        """New TLS handshakes counted at nginx: a request that is its connection's first."""
        rows = []
        for phase, ours in (self.warm or {}).get("swift", {}).items():
            theirs = self.warm["python"].get(phase) or {}
            per_call = [f"{_f(f['handshakes_per_call'], 2)} ({_handshakes(f['tls'])})"
                        if "handshakes_per_call" in f else "n/a" for f in (ours, theirs)]
            rows.append([phase, f"{ours['calls']:.0f}", *per_call,
                         *(_f(f.get("tls_requests_per_call"), 2) for f in (ours, theirs))])
            for side, figures in (("Swift", ours), ("Python", theirs)):
                if first := figures.get("first_calls"):
                    text = (f"first: {first['handshakes']} ({_handshakes(first['tls'])}); next "
                            f"{first['calls'] - 1}: {first['then_handshakes']} "
                            f"({_handshakes(first['then_tls'])})")
                    label = f"{side}, the process's first {first['calls']} invocations"
                    rows.append([f"{label} (before {phase}), totals", first["calls"],
                                 *_ours_theirs(side == "Swift", text), "", ""])
        for count, by_side in (self.refresh or {}).items():
            for side, row in ((side, row) for side, row in by_side.items() if "tls" in row):
                grants, total = int(count), sum(e["handshakes"] for e in row["tls"].values())
                requests = sum(e["requests"] for e in row["tls"].values())
                cells = [f"{_f(total / grants, 3)} ({_handshakes(row['tls'])}, {total})",
                         _f(requests / grants, 2)]
                rows.append([f"refresh run of {grants:,} grants, {SIDE_LABELS.get(side, side)} "
                             "(first run; per grant)", f"{grants:,}",
                             *_ours_theirs(side.startswith("swift"), *cells)])
        return _table("New TLS handshakes (counted at nginx: requests that were their connection's "
                      "first)", "loop|calls:|Swift handshakes per call (AWS / Google, total):|"
                      "Python handshakes per call (AWS / Google, total):|"
                      "Swift TLS requests per call:|Python TLS requests per call:", rows)

    def floor_section(self) -> list[str]:
        swift, refresh = (self.warm or {}).get("swift", {}), self.results.get("refresh_floor")
        rows = [(phase, swift.get(phase, {}).get("cpu_ms_per_call"), row, 2)
                for phase, row in self.results.get("warm_floor", {}).items()]
        if refresh:
            ours = (self.refresh or {}).get(str(refresh["count"]), {}).get("swift", {})
            rows.append((f"refresh, per grant ({refresh['count']:,} due)",
                         ours.get("cpu_ms_per_grant"), refresh, 3))
        cells = [[name, _f(ours, 2), _f(row["cpu_ms_per_call"], 3),
                  f"{_r(_ratio(ours, row['cpu_ms_per_call']))} x", _f(row["requests_per_call"], 2),
                  _f(row["new_connections_per_call"], digits), _answers(row["answers"]),
                  _answers(row["captured_answers"])] for name, ours, row, digits in rows]
        mode = "HTTPS" if self.settings.get("tls") else "plain HTTP"
        return _table(f"The exchange floor of our calls ({mode}): our recorded requests replayed "
                      "through libcurl, one reused easy handle", "loop|ours CPU ms/call:|floor CPU "
                      "ms/call:|ours / floor:|requests per call:|floor's new connections per call:|"
                      "floor's answers (status x count)|our run's answers", cells
                      ) + ["", FLOOR_NOTE]

    def refresh_section(self) -> list[str]:
        def row(count, label: str, r: dict) -> list:
            return [f"{int(count):,}", label, len(r["runs"]), _f(r["wall_s"]),
                    _f(r["grants_per_s"], 0), _f(r["cpu_ms_per_grant"], 2), _f(r["peak_rss_mib"]),
                    _f(r["moto_cpu_ms_per_grant"]), "yes" if r["verified"] else "NO"]
        rows = [row(count, SIDE_LABELS.get(side, side), r)
                for count, by_side in self.refresh.items() for side, r in by_side.items()]
        if paced := self.results.get("refresh_paced"):
            label = f"swift, paced at {paced['writes_per_second']} writes/s"
            rows.append(row(paced["count"], label, paced))
        lines = _table(f"Refresh runs (one fresh process, all grants due; REFRESH_CONCURRENCY="
                       f"{self.settings['concurrency']} on both sides, our "
                       f"REFRESH_MAX_WRITES_PER_SECOND={self.settings['writes_per_second']})",
                       "grants:|side|runs:|wall s:|grants/s:|CPU ms/grant:|peak RSS MiB:|"
                       "moto CPU ms/grant:|verified", rows)
        if not any("python" in by_side for by_side in self.refresh.values()):
            return lines  # no peer: no ratios
        ratios = []
        for count, by_side in self.refresh.items():
            for side, store in (("swift", "Secrets Manager"), ("swift-dynamodb", "DynamoDB + KMS")):
                if (ours := by_side.get(side)) and (theirs := by_side.get("python")):
                    per_s = ours["grants_per_s"] / 1000  # busy: CPU ms per grant x grants per ms
                    ratios.append([f"{int(count):,}", store,
                                   *(_r(_ratio(ours[k], theirs[k]))
                                     for k in ("grants_per_s", "cpu_ms_per_grant")),
                                   _f(ours["cpu_ms_per_grant"] * per_s, 2),
                                   _f(ours["moto_cpu_ms_per_grant"] * per_s, 2)])
        return lines + [""] + _table(None, "grants:|ours, against the peer on Secrets Manager|"
                                     "throughput ratio (Swift / Python):|CPU per grant ratio:|"
                                     "Swift process busy (CPU s / wall s):|moto busy:", ratios)

    def bundle_section(self) -> list[str]:
        rows = [[row["bundle"], _f(row["zipped_mib"]), _f(row["unzipped_mib"])]
                for row in self.results["bundles"]]
        return _table("Deployment bundles (.build-lambda/bundles/*.zip)",
                      "bundle|zipped MiB:|unzipped MiB:", rows or [
                          ["n/a (no bundles built: scripts/bundle.sh has not run)", "n/a", "n/a"]])

    def goals(self) -> list[tuple[str, str, str, bool | None]]:
        """(figure, goal, measured, holds) for issue 7's table; holds is None when not measured."""
        rows, cold, warm, refresh = [], self.cold, self.warm, self.refresh
        peer_cold = cold and "peer-store-moto" in cold
        if peer_cold:
            ratio = self._cold_ratio("swift-store-moto", "peer-store-moto", "first_ms")
            rows.append(("cold store-tokens on moto, median wall", "<= 1/10 of the peer",
                         f"{_r(ratio)} (to response)", ratio <= 0.1))
        if cold:
            ratio = self._cold_ratio("swift-store-embedded", "floor", "exit_ms")
            rows.append(("cold store-tokens on the embedded store, median wall",
                         "<= 2 x the minimal Swift program", f"{_r(ratio)} x", ratio <= 2))
        if peer_cold:
            ratio = max(self._cold_ratio(f"swift-{k}-moto", f"peer-{k}-moto", "rss_mib")
                        for k in ("store", "profile"))
            rows.append(("peak RSS of a cold invocation", "<= 1/3 of the peer",
                         f"{_r(ratio)} (worse of the two)", ratio <= 1 / 3))
        if warm and warm["python"]:
            ratio = max(_ratio(warm["swift"][p]["cpu_ms_per_call"], row["cpu_ms_per_call"])
                        for p, row in warm["python"].items() if p in warm["swift"])
            rows.append(("handler CPU per warm call", "<= 1/10 of the peer",
                         f"{_r(ratio)} (worst loop)", ratio <= 0.1))
        if refresh and all("swift" in s and "python" in s for s in refresh.values()):
            ratio = max(_ratio(s["swift"]["cpu_ms_per_grant"], s["python"]["cpu_ms_per_grant"])
                        for s in refresh.values())
            rows.append(("CPU per refreshed grant", "<= 1/10 of the peer",
                         f"{_r(ratio)} (worst count)", ratio <= 0.1))
            ratios = {c: _ratio(s["swift"]["grants_per_s"], s["python"]["grants_per_s"])
                      for c, s in refresh.items()}
            busy = {c: s["swift"]["cpu_ms_per_grant"] * s["swift"]["grants_per_s"] / 1000
                    for c, s in refresh.items()}
            holds = all(r >= 1 for r in ratios.values()) and all(b < 0.5 for b in busy.values())
            rows.append(("refresh throughput at each count", ">= the peer's, not limited by this "
                         "process", ", ".join(f"{int(c):,}: {_r(r)} x, process {busy[c]:.2f} CPU"
                                              for c, r in ratios.items()), holds))
            if len(counts := sorted(refresh, key=int)) >= 2:
                fewest, most = counts[0], counts[-1]
                small, large = (refresh[c]["swift"]["peak_rss_mib"] for c in (fewest, most))
                growth = large / small - 1
                measured = f"{growth * 100:+.0f} % ({small:.1f} -> {large:.1f} MiB)"
                rows.append((f"peak RSS of a refresh run, {int(most):,} vs {int(fewest):,} grants",
                             "within 20 %", measured, abs(growth) <= 0.2))
        if (bundles := self.results.get("bundles")) is not None:
            mb = max((row["zipped_mib"] * 2**20 / 1e6 for row in bundles), default=None)
            measured = "n/a (no bundles built)" if mb is None else f"largest {mb:.1f} MB"
            holds = None if mb is None else mb <= 20
            rows.append(("zipped bundle per function", "<= 20 MB", measured, holds))
        return rows

    def markdown(self) -> str:
        m, results, settings = self.results["machine"], self.results, self.settings
        mode = ", behind nginx over HTTPS (TLS mode)" if settings.get("tls") else ", plain HTTP"
        load = [" ".join(m.get(f"loadavg_at_{at}", ["?"])) for at in ("start", "end")]
        lines = [f"Run {m['started']} on {m['nproc']} cores (load {load[0]} "
                 f"at start, {load[1]} at end), {m['swift']}, "
                 f"Python {m['python']}; one moto_server and the bench's fake Google on loopback"
                 f"{mode}; {'quick mode' if results['quick'] else 'full run'}.", ""]
        if not settings.get("peer"):
            lines += ["No peer given (--peer DIR): the Python + boto3 comparison was not run.", ""]
        for present, section in (
                ("cold" in results, self.cold_section), ("warm" in results, self.warm_section),
                ("refresh" in results, self.refresh_section),
                (settings.get("tls") and {"warm", "refresh"} & set(results), self.tls_section),
                ("warm_floor" in results or "refresh_floor" in results, self.floor_section),
                ("bundles" in results, self.bundle_section)):
            if present:
                lines += section() + [""]
        if rows := [[*row[:3], "n/a" if row[3] is None else "yes" if row[3] else "**no**"]
                    for row in self.goals()]:
            lines += _table("Goals (issue 7), from this run", "figure|goal|measured|holds", rows)
        return "\n".join(lines) + "\n"

    def draw(self, path: str) -> None:
        """The picture in docs/performance.md: cold invocations, and refresh throughput on Secrets
        Manager (with both sides only), ours beside the peer's."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        refresh = self.refresh
        if refresh and not all("swift" in s and "python" in s for s in refresh.values()):
            refresh = None
        panels = [name for name, present in (("cold", self.cold), ("refresh", refresh)) if present]
        if not panels:
            return
        figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
        axes = dict(zip(panels, axes[0]))

        def bars(axis, labels: list[str], swift: list, python: list, unit: str) -> None:
            width = 0.38
            for offset, values, colour, name in (
                    (-width / 2, swift, "#f05138", "Swift (this project)"),
                    (width / 2, python, "#3572a5", "Python + boto3 (peer)")):
                if values:  # no peer: no Python bars, ours centred
                    at = [p + (offset if python else 0) for p in range(len(labels))]
                    drawn = axis.bar(at, values, width, color=colour, label=name)
                    axis.bar_label(drawn, [f"{v:,.0f}{unit}" if v >= 10 else f"{v:.1f}{unit}"
                                           for v in values], fontsize=8, padding=2)
            axis.set_xticks(list(range(len(labels))), labels)
        if self.cold:
            axis, medians = axes["cold"], {k: r["first_ms"]["median"] for k, r in self.cold.items()}
            peer = [medians[k] for k in ("peer-store-moto", "peer-profile-moto") if k in medians]
            bars(axis, ["store-tokens", "user-profile"],
                 [medians["swift-store-moto"], medians["swift-profile-moto"]], peer, " ms")
            floor = self.cold["floor"]["exit_ms"]["median"]
            axis.axhline(floor, color="#888888", linestyle="--", linewidth=1,
                         label=f"minimal Swift program ({floor:.1f} ms)")
            axis.set_yscale("log")
            axis.set_ylim(top=8 * max(peer + [medians["swift-store-moto"]]))  # room for the legend
            axis.set_ylabel("median wall time to the response, ms (log)")
            axis.set_title(f"Cold invocation on moto ({self.cold['floor']['runs']} runs each)")
            axis.legend(fontsize=8, loc="upper left")
        if refresh:
            axis, counts = axes["refresh"], sorted(refresh, key=int)
            rates = {side: [refresh[c][side]["grants_per_s"] for c in counts]
                     for side in ("swift", "python")}
            bars(axis, [f"{int(c):,} due grants" for c in counts], *rates.values(), "/s")
            axis.set_ylabel("grants refreshed per second (median)")
            axis.set_ylim(top=max(rates["swift"] + rates["python"]) * 1.3)
            axis.set_title("Refresh throughput (8 at a time, same moto)")
            axis.legend(fontsize=8, loc="upper right")
        peer = "vs the Python peer" if self.settings.get("peer") else "(no peer given)"
        machine = self.results["machine"]
        figure.suptitle(f"PayPulse Gmail Connect {peer}, {machine['nproc']} shared cores, "
                        f"{machine['started'][:10]}", fontsize=10)
        figure.tight_layout()
        figure.savefig(path, dpi=110)
        plt.close(figure)
