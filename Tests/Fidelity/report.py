"""scripts/fidelity: the corpus against a fresh FakeEntra, as a table per area and every difference."""
import collections
import sys
import tempfile
import traceback

from fakeentra import FakeEntra

from fidelity import KnownDifferences, compare, load_recordings
from provoke import Provoker


def main(names):
    recordings = [r for r in load_recordings() if not names or any(n in r.name for n in names)]
    known = KnownDifferences()
    per_area = collections.defaultdict(lambda: [0, 0])
    unexplained_lines, explained_lines, gap_lines = [], [], []
    with tempfile.TemporaryDirectory() as certs, FakeEntra(certs_dir=certs) as server:
        provoker = Provoker(server)
        for recording in recordings:
            try:
                differences = compare(recording, provoker.provoke(recording))
            except Exception as error:  # a provocation that broke is a difference too
                differences = [f"provocation failed: {error!r}"]
                if "-v" in sys.argv:
                    traceback.print_exc()
            unexplained, explained = known.split(recording, differences)
            gaps = [(d, reason) for d, reason in explained if reason.startswith("not modelled yet: ")]
            per_area[recording.area][1] += 1
            # A recording FakeEntra does not model yet is no match, explained or not.
            if not unexplained and not gaps:
                per_area[recording.area][0] += 1
            unexplained_lines += [f"  {recording.name}: {d}" for d in unexplained]
            explained_lines += [f"  {recording.name}: {d} — {reason}" for d, reason in explained if (d, reason) not in gaps]
            gap_lines += [f"  {recording.name}: {d} — {reason}" for d, reason in gaps]
    print(f"{'area':<18}{'match':>7}{'of':>5}")
    for area in sorted(per_area):
        matched, total = per_area[area]
        print(f"{area:<18}{matched:>7}{total:>5}")
    matched = sum(m for m, _ in per_area.values())
    print(f"\n{matched} of {len(recordings)} recordings match")
    if explained_lines:
        print(f"\nKept on purpose ({len(explained_lines)}):")
        print("\n".join(explained_lines))
    if gap_lines:
        print(f"\nNot modelled yet ({len(gap_lines)}):")
        print("\n".join(gap_lines))
    if unexplained_lines:
        print(f"\nUnexplained ({len(unexplained_lines)}):")
        print("\n".join(unexplained_lines))
    return 1 if unexplained_lines else 0


if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("-")]))
