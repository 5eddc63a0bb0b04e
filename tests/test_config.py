"""Configuration files: discovery, validation, and what they do to a report."""

from __future__ import annotations

from pathlib import Path

import pytest
from tgtrace.ground.model import Finding, Report, Severity
from tgtrace.rules import all_rules
from tgtrace.run import config as cfg
from tgtrace.run.settings import Settings, SettingsError

AGENT = "urn:trustgraph:agent:0b6f"


def finding(rule="M001", file="traces/react.nq", focus=AGENT + "/final", trace=AGENT, severity=Severity.ERROR):
    return Finding(file=file, line=3, rule=rule, severity=severity, family=all_rules()[rule].family, message="m",
                   focus=focus, trace=trace)


def applied(settings: Settings, findings: list[Finding]) -> Report:
    """The report a run with these settings gives for these findings."""
    kept = [f for f in map(settings.finding, findings) if f is not None]
    return Report(findings=kept, fail_on=settings.fail_on)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_full_config_parses(tmp_path):
    path = write(tmp_path / "tg-trace.toml", """
select = ["m", "C001", "D", "Chain"]
ignore = ["M008"]
fail-on = "warning"
baseline = "ci/baseline.json"
min-coverage = 60
engine = "shacl"

[severity]
T001 = "info"

[per-file-ignores]
"legacy/*" = ["V003"]

[per-iri-ignores]
"urn:trustgraph:agent:*" = ["S005"]
""")
    config = cfg.load(path)
    assert config.select == ("M", "C001", "D", "chain")
    assert config.ignore == ("M008",)
    assert config.fail_on is Severity.WARNING
    assert config.severity == {"T001": Severity.INFO}
    assert config.baseline == str(tmp_path / "ci" / "baseline.json")
    assert config.min_coverage == 60.0 and config.engine == "shacl"
    kinds = {(s.kind, s.pattern, s.codes) for s in config.scoped_ignores}
    assert kinds == {("path", "legacy/*", ("V003",)), ("iri", "urn:trustgraph:agent:*", ("S005",))}


@pytest.mark.parametrize(
    "text, named",
    [
        ('selct = ["M001"]', "'selct' (did you mean 'select'?)"),
        ('select = ["M999"]', "unknown rule code 'M999'"),
        ('ignore = ["Q"]', "unknown rule code 'Q'"),
        ('[severity]\nM00 = "info"', "'M00' must be a full rule code"),
        ('[severity]\nM001 = "fatal"', "severity.M001: expected error, warning, info, got 'fatal'"),
        ('[per-file-ignores]\n"x/*" = ["Z001"]', "per-file-ignores.'x/*': unknown rule code 'Z001'"),
        ('fail-on = "sometimes"', "fail-on: expected error, warning, info or never"),
        ("min-coverage = 120", "min-coverage: expected a percentage"),
        ('engine = "turbo"', "engine: expected one of fast, shacl"),
        ('select = "M001"', "select: expected a list of rule codes"),
        ("select = [", "invalid TOML"),
    ],
)
def test_errors_name_the_key_or_code(tmp_path, text, named):
    path = write(tmp_path / "tg-trace.toml", text)
    with pytest.raises(SettingsError) as error:
        cfg.load(path)
    assert str(error.value).startswith(str(path))
    assert named in str(error.value)


def test_pyproject_table_and_discovery_upwards(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.tg-trace]\nfail-on = "never"\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert cfg.find(deep) == tmp_path / "pyproject.toml"
    assert cfg.discover(deep).fail_on is None
    # A pyproject.toml without the table is not a config; the search goes on past it.
    write(deep / "pyproject.toml", '[project]\nname = "y"\n')
    assert cfg.find(deep) == tmp_path / "pyproject.toml"
    # tg-trace.toml beats pyproject.toml in the same directory, and the nearer one wins.
    write(deep / "tg-trace.toml", 'fail-on = "info"\n')
    assert cfg.discover(deep).fail_on is Severity.INFO


def test_pyproject_unknown_key_is_named(tmp_path):
    path = write(tmp_path / "pyproject.toml", '[tool.tg-trace]\nfail_on = "error"\n')
    with pytest.raises(SettingsError, match=r"unknown key 'fail_on' \(did you mean 'fail-on'\?\)") as error:
        cfg.discover(tmp_path)
    assert str(error.value).startswith(f"{path}: ")


def test_no_config_gives_defaults(tmp_path):
    assert cfg.find(tmp_path) is None
    config = cfg.discover(tmp_path)
    assert config == Settings()
    assert config.fail_on is Severity.ERROR and config.select is None and config.path is None


def test_flags_win_over_file():
    config = Settings(select=("M",), ignore=("M008",), fail_on=Severity.WARNING, engine="shacl")
    merged = config.merge(select=["C001"], ignore=None, fail_on="never", engine=None)
    assert merged.select == ("C001",)
    assert merged.ignore == ("M008",)  # not given on the command line: the file's value stays
    assert merged.fail_on is None
    assert merged.engine == "shacl"
    assert config.merge(fail_on="info").fail_on is Severity.INFO
    with pytest.raises(TypeError):
        config.merge(colour="red")


def test_apply_overrides_and_scoped_ignores(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path / "tg-trace.toml", """
[severity]
M001 = "warning"

[per-file-ignores]
"legacy/*" = ["M"]
"old-*.nq" = ["chain"]

[per-iri-ignores]
"urn:trustgraph:question:*" = ["S005"]
""")
    config = cfg.load(path)
    findings = [
        finding(),  # downgraded to a warning
        finding(file="legacy/deep/x.nq"),  # ignored by path (fnmatch's * crosses folders)
        finding(rule="C001", file="elsewhere/old-react.nq"),  # bare name matches anywhere
        finding(rule="C001", file="elsewhere/new-react.nq"),  # kept
        finding(rule="S005", focus="urn:x", trace="urn:trustgraph:question:1"),  # ignored by its trace
        finding(rule="S005", focus="urn:trustgraph:agent:1", trace="urn:trustgraph:agent:1"),  # kept
    ]
    report = applied(config, findings)
    kept = [(f.rule, f.file, f.severity) for f in report.findings]
    assert kept == [
        ("M001", "traces/react.nq", Severity.WARNING),
        ("C001", "elsewhere/new-react.nq", Severity.ERROR),
        ("S005", "traces/react.nq", Severity.ERROR),
    ]
    # A downgraded error no longer fails the run.
    only_m001 = applied(config, [finding()])
    assert only_m001.conforms


def test_path_patterns_are_relative_to_the_config_file(tmp_path, monkeypatch):
    project = tmp_path / "project"
    path = write(project / "tg-trace.toml", '[per-file-ignores]\n"traces/*" = ["M001"]\n')
    config = cfg.load(path)
    monkeypatch.chdir(project / "..")
    assert applied(config, [finding(file="project/traces/a.nq")]).findings == []
    assert applied(config, [finding(file="traces/a.nq")]).findings != []
