"""The picture in docs/performance.md: cold-start time and refresh throughput, this project beside the peer."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SWIFT, PYTHON, FLOOR = "#f05138", "#3572a5", "#888888"


def _bars(axis, labels, swift, python, unit):
    positions = range(len(labels))
    width = 0.38
    for offset, values, colour, name in ((-width / 2, swift, SWIFT, "Swift (this project)"), (width / 2, python, PYTHON, "Python + boto3 (peer)")):
        if not values:  # no peer
            continue
        bars = axis.bar([p + (offset if python else 0) for p in positions], values, width, color=colour, label=name)
        for bar, value in zip(bars, values):
            axis.annotate(f"{value:,.0f}{unit}" if value >= 10 else f"{value:.1f}{unit}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                          ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    axis.set_xticks(list(positions), labels)


def draw(results: dict, path: str) -> None:
    if "refresh" in results and not all("swift" in s and "python" in s for s in results["refresh"].values()):
        results = {k: v for k, v in results.items() if k != "refresh"}  # the chart compares ours and the peer's on Secrets Manager
    panels = [k for k in ("cold", "refresh") if k in results]
    if not panels:
        return
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    axes = axes[0]
    index = 0
    if "cold" in results:
        cold, axis = results["cold"], axes[index]
        _bars(axis, ["store-tokens", "user-profile"],
              [cold["swift-store-moto"]["first_ms"]["median"], cold["swift-profile-moto"]["first_ms"]["median"]],
              [cold[k]["first_ms"]["median"] for k in ("peer-store-moto", "peer-profile-moto") if k in cold], " ms")
        floor = cold["floor"]["exit_ms"]["median"]
        axis.axhline(floor, color=FLOOR, linestyle="--", linewidth=1, label=f"minimal Swift program ({floor:.1f} ms)")
        axis.set_yscale("log")
        tallest = max(cold[k]["first_ms"]["median"] for k in ("peer-store-moto", "peer-profile-moto", "swift-store-moto") if k in cold)
        axis.set_ylim(top=tallest * 8)  # room for the legend above the bars
        axis.set_ylabel("median wall time to the response, ms (log)")
        axis.set_title(f"Cold invocation on moto ({cold['floor']['runs']} runs each)")
        axis.legend(fontsize=8, loc="upper left")
        index += 1
    if "refresh" in results:
        refresh, axis = results["refresh"], axes[index]
        counts = sorted(refresh, key=int)
        _bars(axis, [f"{int(c):,} due grants" for c in counts], [refresh[c]["swift"]["grants_per_s"] for c in counts],
              [refresh[c]["python"]["grants_per_s"] for c in counts], "/s")
        axis.set_ylabel("grants refreshed per second (median)")
        axis.set_ylim(top=max(max(refresh[c][s]["grants_per_s"] for s in ("swift", "python")) for c in counts) * 1.3)
        axis.set_title("Refresh throughput (8 at a time, same moto)")
        axis.legend(fontsize=8, loc="upper right")
    peer = "vs the Python peer" if results["settings"].get("peer") else "(no peer given)"
    figure.suptitle(f"PayPulse Gmail Connect {peer}, {results['machine']['nproc']} shared cores, "
                    f"{results['machine']['started'][:10]}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
