"""Decides whether a run of the MCP conformance suite passed, from its results folder.

Usage: conformance_verdict.py RESULTS_DIR EXPECTED_FAILURES_YML

Every scenario must pass (each check SUCCESS or INFO) except:
  - scenarios listed under `server:` in the expected-failures file, which must still fail (a
    listed scenario that passes is a stale entry, and fails the verdict so it gets removed);
  - checks listed under `tolerated-warnings:`, which may end as WARNING (never FAILURE).
The file is the suite's own baseline format plus that one key; it is read line by line (a
list of `- name` items under each key) so that no YAML library is needed.
"""

import json
import pathlib
import re
import sys


def read_lists(path):
    lists, key = {}, None
    for raw in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        head = re.fullmatch(r"([A-Za-z0-9_-]+):\s*", line)
        if head:
            key = head.group(1)
            lists.setdefault(key, [])
            continue
        item = re.fullmatch(r"\s+-\s+(\S+)", line)
        if item and key is not None:
            lists[key].append(item.group(1))
        else:
            sys.exit(f"{path}: cannot read line {raw!r} (want `key:` or `  - name`)")
    return lists


def main():
    results, baseline = pathlib.Path(sys.argv[1]), sys.argv[2]
    lists = read_lists(baseline)
    expected = set(lists.get("server", []))
    tolerated = set(lists.get("tolerated-warnings", []))
    seen, problems = set(), []
    for checks_file in sorted(results.glob("server-*/checks.json")):
        # server-<scenario>-<ISO timestamp>
        scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", checks_file.parent.name)
        seen.add(scenario)
        checks = json.loads(checks_file.read_text(encoding="utf-8"))
        failed = [c for c in checks if c.get("status") == "FAILURE"]
        warned = [c for c in checks if c.get("status") == "WARNING" and c.get("id") not in tolerated]
        if scenario in expected:
            if not failed:
                problems.append(f"{scenario}: passes now; remove it from {baseline}")
            continue
        for c in failed + warned:
            problems.append(f"{scenario}: {c.get('status')} {c.get('id')}: {c.get('errorMessage') or c.get('description')}")
    for scenario in sorted(expected - seen):
        problems.append(f"{scenario}: listed in {baseline} but the suite has no such scenario")
    required = sorted(seen - expected)
    print(f"conformance: {len(required)} scenarios required and passing: {', '.join(required)}")
    print(f"conformance: {len(expected & seen)} expected failures (reasons in {baseline})")
    if problems:
        print("conformance: FAILED", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
