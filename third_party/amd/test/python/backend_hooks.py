"""The AMD backend's test hook (kiln_test_setup.py installs it for every suite): every AMD kernel
the tests compile goes through the independent vmcnt simulator (third_party/amd/tools/
amdgcn_waits.py). A compile whose assembly lets an LDS access read bytes a direct-to-LDS copy
may still be writing fails the test that compiled it; ``CompiledKernel.vmcnt_reports`` keeps
the reports for tests that assert more (slack). test_amd_dsl.py checks the hook runs."""

import os
import sys

_TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
CHECKED = []
SLACK = {}  # (kernel, target) -> the largest slack any of its compiles' waits has


def install():
    if _TOOLS not in sys.path:
        sys.path.insert(0, _TOOLS)
    from kiln.compiler import compiler as compiler_mod

    init = compiler_mod.CompiledKernel.__init__
    if getattr(init, "checked", None) is not None:  # already installed
        return

    def checked_init(self, name, asm, metadata, *args, **kwargs):
        init(self, name, asm, metadata, *args, **kwargs)
        text = asm.get("amdgcn") if isinstance(asm, dict) else None
        if isinstance(text, str) and str(metadata.get("target", "")).startswith("hip:"):
            import amdgcn_waits
            reports = amdgcn_waits.check(text)
            self.vmcnt_reports = reports
            bad = [r.render() for r in reports if r.violations]
            CHECKED.append(name)
            for r in reports:
                if r.max_slack is not None:
                    key = (name, str(metadata.get("target")))
                    SLACK[key] = max(SLACK.get(key, 0), r.max_slack)
            assert not bad, "vmcnt check failed:\n" + "\n".join(bad)

    checked_init.checked = CHECKED  # what test_amd_dsl.py reads
    checked_init.unchecked = init  # for a test whose kernel reads an in-flight copy on purpose
    compiler_mod.CompiledKernel.__init__ = checked_init


def summary(terminalreporter):
    if CHECKED:
        terminalreporter.write_line(f"vmcnt check: {len(CHECKED)} AMD kernel compiles "
                                    f"checked (a violation fails the test that compiled it)")
    if SLACK:
        # Slack: how much stricter than needed a wait is (0: the weakest safe wait).
        loose = sorted((k for k, v in SLACK.items() if v), key=lambda k: (-SLACK[k], k))
        terminalreporter.write_line(
            f"vmcnt slack: {len(SLACK) - len(loose)} of {len(SLACK)} (kernel, target) pairs "
            f"at slack 0" + ("; others: " + ", ".join(f"{n} on {t}: {SLACK[(n, t)]}"
                                                     for n, t in loose) if loose else ""))
