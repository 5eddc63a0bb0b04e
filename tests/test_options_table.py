"""The faces agree on every setting and every format: each setting is declared once, in the options
table (tgtrace.run.options), and the configuration file, the Python API and the flags of lint and
watch take it from there; every --format and --to choice is drawn from the format registry."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from conftest import EXAMPLES, ROOT
from tgtrace import cli
from tgtrace.formats import KINDS, REGISTRY, choices, of_kind
from tgtrace.run import config, options
from tgtrace.run.settings import Output, Settings, SettingsError

# Per setting that has both a key and a flag: a good value as TOML and as flags, and a bad value as
# TOML and as the Python API hands it. A new option fails test_the_config_key_and_the_flag_agree until
# it is given its samples here.
SAMPLES = {
    "select": (["C0", "termination"], ["--select", "C0,termination"], ["Q123"], ["Q123"]),
    "ignore": (["V003"], ["--ignore", "V003"], "V003", ["nothing"]),
    "fail_on": ("warning", ["--fail-on", "warning"], "sometimes", "sometimes"),
    "show": ("warning", ["--show", "warning"], "loud", "loud"),
    "engine": ("shacl", ["--engine", "shacl"], "turbo", "turbo"),
    "target_version": ("2.11", ["--target-version", "2.11"], "two", "two"),
    "baseline": ("known.json", ["--baseline", "known.json"], 7, 7),
    "min_coverage": (40, ["--min-coverage", "40"], 120, 120),
    "one_capture": (True, ["--one-capture"], "yes", "yes"),
    "stream_memory": (1000, ["--stream-memory", "1000"], -1, "many"),
    "diagrams": (20, ["--diagrams", "20"], -1, "many"),
}


def _value(settings: Settings, option: options.Option):
    return getattr(settings.output if option.output else settings, option.field)


def _flags(command: click.Command) -> dict[str, click.Option]:
    return {name: param for param in command.params if isinstance(param, click.Option) for name in param.opts}


def test_every_setting_is_declared_once():
    declared = {f.name for f in dataclasses.fields(Settings)} - set(options.DERIVED)
    for name in sorted(declared):
        entries = options.by_field(name)
        assert entries, f"Settings.{name} has no entry in the options table"
        assert len(entries) == 1 or all(e.joined for e in entries), f"Settings.{name} is declared {len(entries)} times"
        assert not any(e.output for e in entries)
    shown = {f.name for f in dataclasses.fields(Output)} - set(options.OUTPUT_DERIVED)
    for name in sorted(shown):
        entries = options.by_field(name)
        assert len(entries) == 1 and entries[0].output, f"Output.{name} is not declared once in the options table"
    fields = {f.name for f in dataclasses.fields(Settings)} | {f.name for f in dataclasses.fields(Output)}
    assert {o.field for o in options.OPTIONS} <= fields
    flags = [o.flag for o in options.OPTIONS if o.flag] + [o.short for o in options.OPTIONS if o.short]
    keys = [o.key for o in options.OPTIONS if o.key]
    assert len(flags) == len(set(flags)) and len(keys) == len(set(keys))
    # The configuration reader knows the table's keys and no other.
    assert list(config.KEYS) == keys


@pytest.mark.parametrize("command", sorted({c for o in options.OPTIONS for c in o.commands}))
def test_each_command_takes_the_tables_flags_as_it_declares_them(command):
    """lint and watch above all; list, show, graph and convert take a few of the same settings."""
    flags = _flags(cli.main.commands[command])
    for option in options.for_command(command):
        param = flags.get(option.flag)
        assert param is not None, f"{command} does not take {option.flag}"
        assert param.help == option.help_for(command)
        assert param.name == option.field
        if option.short:
            assert option.short in param.opts
        if option.choices:
            assert list(param.type.choices) == list(option.choices)


def test_no_command_declares_a_setting_beside_the_table():
    assert {"lint", "watch"} <= {c for o in options.OPTIONS for c in o.commands}
    for name, command in cli.main.commands.items():
        taken = _flags(command)
        for option in options.OPTIONS:
            if option.flag in taken:
                assert name in option.commands, f"{name} declares {option.flag} itself"


def test_lint_and_watch_share_one_declaration_of_their_common_flags():
    lint, watch = _flags(cli.main.commands["lint"]), _flags(cli.main.commands["watch"])
    for flag in ("--select", "--ignore", "--fail-on", "--show"):
        assert lint[flag].type.__class__ is watch[flag].type.__class__
        assert getattr(lint[flag].type, "choices", None) == getattr(watch[flag].type, "choices", None)


def _flag_settings(command: str, args: list[str]) -> Settings:
    ctx = cli.main.commands[command].make_context(command, [*args, "--no-config"])
    given = cli._given(command, {k: v for k, v in ctx.params.items()
                                 if k in {o.field for o in options.for_command(command)}})
    return config.resolve(no_config=True, **given)


@pytest.mark.parametrize("option", [o for o in options.OPTIONS if o.key and o.flag], ids=lambda o: o.field)
def test_the_config_key_and_the_flag_agree(tmp_path, monkeypatch, option):
    assert option.field in SAMPLES, f"give {option.field} its samples in SAMPLES"
    good_toml, good_flags, bad_toml, bad_api = SAMPLES[option.field]
    monkeypatch.chdir(tmp_path)
    from_file = config.parse({option.key: good_toml}, str(tmp_path / "tg-trace.toml"))
    from_flag = _flag_settings(option.commands[0], good_flags)
    in_file, by_flag = _value(from_file, option), _value(from_flag, option)
    if option.relative:  # the file's path is relative to the file, the flag's to the working directory
        in_file, by_flag = Path(in_file).resolve(), Path(by_flag).resolve()
    assert in_file == by_flag and _value(from_flag, option) != _value(Settings(), option)
    # A bad value is refused with the same words, naming the key or the flag.
    with pytest.raises(SettingsError) as in_file:
        config.parse({option.key: bad_toml}, str(tmp_path / "tg-trace.toml"))
    with pytest.raises(SettingsError) as given:
        Settings().merge(**{option.field: bad_api})
    file_words = str(in_file.value).removeprefix(f"tg-trace.toml: {option.key}: ")
    flag_words = str(given.value).removeprefix(f"{option.flag}: ")
    assert file_words != str(in_file.value) and flag_words != str(given.value)
    if bad_toml == bad_api:
        assert file_words == flag_words


def test_a_flag_wins_over_the_key_and_an_unset_flag_keeps_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tg-trace.toml").write_text('show = "error"\nfail-on = "info"\n')
    kept = config.resolve(output=Output(format="json"))
    assert kept.output.show is not None and str(kept.output.show) == "error" and kept.output.format == "json"
    flagged = config.resolve(output=Output(format="json"), show="warning")
    assert str(flagged.output.show) == "warning"


def test_the_engine_is_checked_by_one_function_wherever_it_is_given(tmp_path):
    from tgtrace import api

    words = "expected one of fast, shacl, got 'turbo'"
    with pytest.raises(SettingsError, match=f"--engine: {words}"):
        Settings().merge(engine="turbo")
    with pytest.raises(SettingsError, match=f"engine: {words}"):
        api.lint(str(EXAMPLES / "graph-rag.nq"), settings=Settings(engine="turbo"))


def test_the_stdin_bounds_and_the_repository_root_are_defined_once(tmp_path, monkeypatch):
    from tgtrace.formats.common import repository_root
    from tgtrace.inputs import loaders

    assert Settings().max_stdin == loaders.MAX_STDIN_BYTES and Settings().stdin_timeout == loaders.STDIN_TIMEOUT
    assert str(loaders.MAX_STDIN_BYTES) in options.FLAGS["max_stdin"].help
    inner = tmp_path / "repo" / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    (tmp_path / "tg-trace.toml").write_text('fail-on = "never"\n')  # above the repository: not applied
    monkeypatch.chdir(inner)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    assert repository_root() == tmp_path / "repo"
    assert config.find() is None


# ---------------------------------------------------------------- formats

KIND_OF_COMMAND = {"lint": "report", "check": "report", "watch": "live", "list": "view", "show": "view",
                   "convert": "rdf", "diff": "diff"}


def test_every_format_choice_comes_from_the_registry():
    seen = set()
    for name, command in cli.main.commands.items():
        for flag in ("--format", "--to"):
            param = _flags(command).get(flag)
            if param is None:
                continue
            assert name in KIND_OF_COMMAND, f"{name} {flag}: its kind of format is not known to this test"
            assert list(param.type.choices) == choices(KIND_OF_COMMAND[name]), (name, flag)
            seen.add(KIND_OF_COMMAND[name])
    assert seen == set(KINDS)


def test_every_registered_format_has_its_writer():
    from tgtrace.formats import diff, listshow, live, rdf
    from tgtrace.ground.model import Finding, Severity

    finding = Finding(file="f.nq", line=1, rule="T001", severity=Severity.ERROR, family="termination", message="m",
                      focus="urn:x")
    for name in choices("live"):
        assert live.line(finding, name)
    for name in choices("view"):
        assert listshow.render_list([], name) is not None and listshow.render_show([], name) is not None
    assert list(rdf.RDF_FORMATS) == choices("rdf")
    assert diff.DIFF_FORMATS == of_kind("diff")
    assert all(f.kind in KINDS for f in REGISTRY)


def test_the_docs_list_every_kind_from_the_registry():
    sys.path.insert(0, str(ROOT / "docs" / "gen"))
    try:
        from sitegen.pages.cli import config_keys_directive, formats_directive
    finally:
        sys.path.remove(str(ROOT / "docs" / "gen"))
    for kind in KINDS:
        table = formats_directive(None, [kind], {}, "x.md")
        assert [row.split("`")[1] for row in table.splitlines()[2:]] == choices(kind)
        assert formats_directive(None, [kind, "names"], {}, "x.md").count("`") == 2 * len(of_kind(kind))
    keys = config_keys_directive(None, [], {}, "x.md")
    assert [row.split("`")[1] for row in keys.splitlines()[2:]] == list(config.KEYS)
    pages = "".join((ROOT / "docs" / page).read_text() for page in ("ci.md", "deployment.md"))
    assert "<!-- tgdocs:config-keys -->" in pages and "<!-- tgdocs:formats live -->" in pages


# ---------------------------------------------------------------- --show

# Eight info findings (a 2.1.16 trace judged by its own model) and one warning (T004).
SHOWN = [str(EXAMPLES / "releases" / "2.1.16" / "graph-rag.nq"), str(EXAMPLES / "legacy-react-one-shot.nq")]


def tg_trace(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_show_lists_only_the_findings_at_or_above_it_and_the_summary_counts_all(tmp_path):
    everything = tg_trace("lint", *SHOWN, "--no-config", "--format", "concise", "--show", "info", cwd=tmp_path)
    shown = tg_trace("lint", *SHOWN, "--no-config", "--format", "concise", "--show", "warning", cwd=tmp_path)
    assert everything.returncode == shown.returncode == 0, shown.stderr

    def findings(text: str) -> list[str]:
        return [line for line in text.splitlines() if re.search(r":\d+: [A-Z]\d{3} ", line)]

    assert [line for line in findings(everything.stdout) if " info " in line]
    assert [line.split(": ", 1)[1] for line in findings(shown.stdout)] == [
        line.split(": ", 1)[1] for line in findings(everything.stdout) if " warning " in line] != []
    assert shown.stdout.splitlines()[-1].endswith(": 1 warning, 8 info (info not shown; --show info lists them).")
    # The configuration key says the same.
    (tmp_path / "tg-trace.toml").write_text('show = "info"\n')
    configured = tg_trace("lint", *SHOWN, "--format", "concise", cwd=tmp_path)
    assert configured.stdout == everything.stdout
    # JSON: the findings shown, the summary of them all.
    data = json.loads(tg_trace("lint", *SHOWN, "--no-config", "--format", "json", "--show", "warning").stdout)
    assert {f["severity"] for f in data["findings"]} == {"warning"}
    assert data["summary"]["info"] == 8 and data["summary"]["findings"] == 9
    assert data["summary"]["not_shown"] == 8
    # HTML: the table lists the findings shown; its summary counts them all and says what it leaves out.
    page = tg_trace("lint", *SHOWN, "--no-config", "--format", "html", "--show", "warning").stdout
    assert page.count(' data-severity="warning"') == 1 and ' data-severity="info"' not in page
    assert '<span class="info">8 info</span>' in page
    assert '<span class="muted" id="not-shown">info not shown; --show info lists them</span>' in page


def test_show_never_changes_the_verdict():
    hidden = tg_trace("lint", *SHOWN, "--no-config", "--format", "concise", "--show", "error", "--fail-on", "info")
    assert hidden.returncode == 1
    assert hidden.stdout.splitlines()[-1].endswith(
        ": 1 warning, 8 info (warnings and info not shown; --show info lists them).")


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_a_passing_log_lists_warnings_and_counts_the_info_findings(fmt):
    """The reports a person reads in a CI log list warnings and errors by default; the summary
    counts the info findings and says how to list them; --fail-on still judges them."""
    default = tg_trace("lint", *SHOWN, "--no-config", "--format", fmt)
    assert default.returncode == 0, default.stderr
    assert not re.search(r":\d+: [A-Z]\d{3} info ", default.stdout)
    assert re.search(r":\d+: T004 warning ", default.stdout)
    assert default.stdout.splitlines()[-1].endswith(": 1 warning, 8 info (info not shown; --show info lists them).")
    everything = tg_trace("lint", *SHOWN, "--no-config", "--format", fmt, "--show", "info")
    assert len(re.findall(r":\d+: [A-Z]\d{3} info ", everything.stdout)) == 8
    # What fails the run is listed: --fail-on info lists the info findings it fails on.
    failing = tg_trace("lint", *SHOWN, "--no-config", "--format", fmt, "--fail-on", "info")
    assert failing.returncode == 1
    assert len(re.findall(r":\d+: [A-Z]\d{3} info ", failing.stdout)) == 8


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab", "github"])
def test_the_formats_programs_read_carry_every_finding_by_default(fmt):
    out = tg_trace("lint", *SHOWN, "--no-config", "--format", fmt).stdout
    assert out.count("T004") >= 1 and out.count("not shown") == 0
    listed = tg_trace("lint", *SHOWN, "--no-config", "--format", fmt, "--show", "info").stdout
    assert out == listed


def _said(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_the_default_of_show_is_said_the_same_everywhere():
    """--help, the configuration reference, the README and the docs give the text report's default
    in the same words (options.SHOW_DEFAULT)."""
    from click.testing import CliRunner

    sys.path.insert(0, str(ROOT / "docs" / "gen"))
    try:
        from sitegen.pages.cli import config_keys_directive
    finally:
        sys.path.remove(str(ROOT / "docs" / "gen"))
    said = _said(options.SHOW_DEFAULT)
    assert "warning in the text and concise reports" in said and "--fail-on info" in said
    for command in ("lint", "watch"):
        assert said in _said(CliRunner().invoke(cli.main, [command, "--help"]).output), command
    assert said in _said(config_keys_directive(None, [], {}, "x.md"))
    for page in ("README.md", "docs/linting.md", "docs/deployment.md"):
        assert said in _said((ROOT / page).read_text()), page


@pytest.mark.parametrize("show", [[], ["--show", "error"]], ids=["every finding", "--show error"])
def test_watch_prints_only_what_show_asks_for_and_its_summary_counts_all(show):
    from hostile_gateway import HostileGateway
    from test_gateway_hostile import Watching, flow_ok_only

    sent = json.loads((EXAMPLES / "legacy-react-one-shot.json").read_text())  # one T004 warning

    async def export(session):
        await session.send({"metadata": {"id": "e1", "collection": "c"}, "triples": sent})

    with HostileGateway(socket=flow_ok_only, export=export) as gateway:
        watch = Watching("-u", gateway.url, "--format", "jsonl", "--quiet-period", "0.1", *show)
        watch.wait_for("watching flow")
        time.sleep(3)
        status, out, err = watch.stop()
    summary = err.splitlines()[-1]
    assert status == 0 and "1 trace linted" in summary and "1 warning" in summary, err
    printed = [json.loads(line)["rule"] for line in out.splitlines()]
    assert printed == ([] if show else ["T004"])
