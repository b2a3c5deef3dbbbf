"""Training config, prompts, demonstrations and CLI errors (fast: no model is trained here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from aquarelle.train.config import ConfigError, documented_keys, load_config
from aquarelle.train.completion import extract_sketch, unfinished_thinking
from aquarelle.train.data import (DataError, _group_calls, group_seed, load_demos, load_prompts,
                                  program_of)

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]


def test_defaults_and_overrides(tmp_path):
    cfg = load_config()
    assert cfg.mode == "tools" and cfg.model.name == "smollm2" and cfg.reward.preset == "judge-led"
    f = tmp_path / "c.yaml"
    f.write_text("mode: sketch\noptim:\n  max_steps: 7\nreward:\n  preset: hps-only\n  judge_backend: openai\n")
    cfg = load_config(f, {"optim.max_steps": 3, "generation.num_generations": 4, "mode": None})
    assert (cfg.mode, cfg.optim.max_steps, cfg.generation.num_generations) == ("sketch", 3, 4)
    assert cfg.reward.reward_config()["judge_backend"] == "openai"


@pytest.mark.parametrize("text,needle", [
    ("optim:\n  max_steps: 0\n", "optim.max_steps"),
    ("reward:\n  preset: best\n", "reward.preset"),
    ("modle: x\n", "modle"),
    ("mode: [unclosed\n", "not valid yaml"),
    ("reward:\n  extra: {bogus: 5}\n", "reward.extra.bogus"),
    ("reward:\n  extra: {references: {love: -1}}\n", "reward.extra.references.love"),
    ("reward:\n  weights: {colour: 1}\n", "reward.weights"),
    ("env:\n  hide_tools: [vertx]\n", "env.hide_tools: 'vertx' is not a brush method"),
    ("env:\n  action_space: hf11\n", "env.action_space: unknown action space 'hf11'"),
    ("env:\n  action_space: fill,circel\n", "env.action_space: custom action space names unknown method(s): circel"),
    ("model:\n  name: ''\n", "model.name: must name a policy"),
    ("generation:\n  temperature: .inf\n", "generation.temperature: Input should be a finite number"),
])
def test_bad_config_is_one_line_naming_the_key(tmp_path, text, needle):
    f = tmp_path / "c.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(f)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_a_config_that_is_not_utf8_is_one_line(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_bytes(b"mode: \xcc\xff\n")
    with pytest.raises(ConfigError, match="is not valid UTF-8") as e:
        load_config(f)
    assert "\n" not in str(e.value)


def test_a_config_path_that_is_a_directory_says_so(tmp_path):
    """`--config RUN` (meaning RUN/config.json) is one line saying the path is a directory; it said "does not
    exist", about a path the user can see, for train and for every reader of the reward section alike."""
    from aquarelle.env.scoring import server_reward_config
    from aquarelle.rewards.config import RewardError

    with pytest.raises(ConfigError, match=r"^config file .* is a directory, not a file$"):
        load_config(tmp_path)
    with pytest.raises(RewardError, match=r"^reward config .* is a directory, not a file$"):
        server_reward_config(str(tmp_path))


def test_a_yaml_config_is_read_by_its_suffix_in_any_case(tmp_path):
    """docs/config.md: one YAML or JSON file. GPU.YAML was read as JSON ("not valid YAML: Expecting value"), and a
    YAML file under another name got a JSON error calling it "not valid cfg"; the name decides, and says so."""
    for name in ("GPU.YAML", "gpu.Yml"):
        (tmp_path / name).write_text("optim:\n  max_steps: 7\n")
        assert load_config(tmp_path / name).optim.max_steps == 7
    (tmp_path / "gpu.cfg").write_text("optim:\n  max_steps: 7\n")
    with pytest.raises(ConfigError, match=r"gpu.cfg is not valid JSON \(a file not named .yaml or .yml is read as "
                                          r"JSON\): Expecting value"):
        load_config(tmp_path / "gpu.cfg")


def test_every_config_key_is_documented():
    doc = (REPO / "docs" / "config.md").read_text()
    missing = [k for k in documented_keys() if f"`{k}`" not in doc]
    assert not missing, f"docs/config.md does not document: {missing}"


def test_prompts_split_and_group_seed():
    train = load_prompts(DATA / "train_prompts.json", "train")
    held = load_prompts(DATA / "train_prompts.json", "heldout")
    assert {r.id for r in train}.isdisjoint({r.id for r in held}) and len(held) == 1
    assert group_seed(0, "p1") == group_seed(0, "p1") != group_seed(0, "p2")
    with pytest.raises(DataError, match="does not exist"):
        load_prompts(DATA / "nope.json")


def test_a_prompt_id_naming_two_prompts_or_two_splits_is_refused(tmp_path):
    # eval and GRPO key prompts by id: two texts under one id were compared as one prompt, and an id both trained
    # and held out leaks training into the held-out verdict
    two = tmp_path / "two.json"
    two.write_text(json.dumps([{"id": "a", "prompt": "red tulips"}, {"id": "a", "prompt": "a fox in the snow"}]))
    with pytest.raises(DataError, match=r"two\.json: prompt id 'a' names two prompts \('red tulips' and 'a fox"):
        load_prompts(two)
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"train": [{"id": "a", "prompt": "red tulips"}],
                                "heldout": [{"id": "a", "prompt": "red tulips"}]}))
    with pytest.raises(DataError, match="prompt id 'a' is in two splits \\(train and heldout\\)"):
        load_prompts(both)
    again = tmp_path / "again.json"  # the same prompt written twice is weighed twice, as written
    again.write_text(json.dumps([{"id": "a", "prompt": "red tulips"}, {"id": "a", "prompt": "red tulips"}]))
    assert [r.prompt for r in load_prompts(again)] == ["red tulips", "red tulips"]


def test_demos_fit_action_space_and_group_into_turns():
    demos = load_demos(DATA / "train_demos")
    assert len(demos) == 3
    assert all(program_of(d, "hf10") is not None for d in demos)
    assert program_of(demos[0], "fill,circle") is None  # uses shapes: outside that space
    turns = _group_calls(demos[0].program)
    flat = [name for t in turns for name, _ in t]
    assert "shape" in flat and "beginShape" not in flat and "vertex" not in flat
    assert load_demos(DATA / "train_demos", tiers=("okay",))[0].id == "sunset"


def test_a_bad_demos_source_is_one_line(tmp_path):
    """--demos that is not a directory must fail, not warm-start on the pool's paintings instead."""
    with pytest.raises(DataError, match="no such directory"):
        load_demos(tmp_path / "missing")
    (tmp_path / "a.json").write_text("[]")
    with pytest.raises(DataError, match="not a directory"):
        load_demos(tmp_path / "a.json")
    with pytest.raises(DataError, match='a.json must be a JSON object with a "prompt"'):
        load_demos(tmp_path)
    (tmp_path / "a.json").write_text('{"sketch": "function setup() {}"}')
    with pytest.raises(DataError, match='a.json must be a JSON object with a "prompt"'):
        load_demos(tmp_path)


def test_extract_sketch():
    assert extract_sketch("here:\n```js\nfunction setup(){}\n```\nbye") == "function setup(){}"
    assert extract_sketch("function setup(){}") == "function setup(){}"
    assert extract_sketch("```javascript\nlet a = 1;") == "let a = 1;"


def test_extract_sketch_reads_any_fence_and_skips_reasoning():
    """A completion's code is what the model meant as its answer: a fence with any info string (a ```JavaScript
    fence once gave the prose after the block, a gate 0 for a valid sketch), the block that defines setup over a
    snippet before it, and never a draft inside a reasoning model's <think> section."""
    sketch = "function setup() {\n  createCanvas(600, 600);\n}"
    assert extract_sketch(f"```JavaScript\n{sketch}\n```\nThis paints a sky.") == sketch
    for info in ("jsx", " js", "js title=sketch.js", "p5.js", "typescript"):
        assert extract_sketch(f"```{info}\n{sketch}\n```") == sketch
    assert extract_sketch(f"First the palette:\n```js\nconst sky = '#9bd';\n```\nThe sketch:\n```js\n{sketch}\n```") == sketch
    assert extract_sketch(f"```js\nconst a = 1;\n```\n```js\nconst b = 2;\n```") == "const a = 1;"
    draft = "<think>\nMaybe:\n```js\nbrush.line(0, 0, 1, 1)\n```\nNo, a whole sketch.\n</think>\n"
    assert extract_sketch(f"{draft}```js\n{sketch}\n```") == sketch
    assert extract_sketch(f"I should paint a sky.\n</think>\n\n```js\n{sketch}\n```") == sketch  # <think> in the prompt
    assert extract_sketch(f"<think>\nA sky, then ```js\n{sketch}") == ""  # cut off while reasoning: no answer
    assert extract_sketch(f"<think>ok</think>{sketch}") == sketch
    # reasoning after the answer, or a stray </think> in prose, leaves the answer whole
    whole = sketch + "\nfunction draw() {}"
    assert extract_sketch(f"Here:\n```js\n{whole}\n```\n<think>more?</think>\nDone.") == whole
    assert extract_sketch(f"```js\n{whole}\n```\nI used </think>-style reasoning? no.") == whole
    assert extract_sketch(f"Use ```brush.fill``` first, then:\n```js\n{whole}\n```") == whole  # inline: no fence
    assert extract_sketch(f"Steps:\n  ```js\n  {whole}\n  ```") == whole  # a fence indented under a list item


def test_extract_sketch_takes_the_finished_sketch_of_an_answer_in_several_blocks():
    """The first block defining setup was a skeleton or a first try before the finished sketch (a gate 0 for a
    valid answer); setup and draw in two blocks lost draw; an HTML page was read as JavaScript."""
    skeleton = "function setup() {\n  createCanvas(600, 600, WEBGL);\n}\nfunction draw() {\n  // paint here\n}"
    full = ("function setup() {\n  createCanvas(600, 600, WEBGL);\n}\n"
            "function draw() {\n  brush.fill('red', 120);\n  brush.circle(300, 300, 100);\n}")
    assert extract_sketch(f"Skeleton:\n```js\n{skeleton}\n```\nFull sketch:\n```js\n{full}\n```") == full
    typo = full.replace("brush.fill(", "brush.fil(")
    assert extract_sketch(f"```js\n{typo}\n```\nOops, corrected:\n```js\n{full}\n```\nEnjoy.") == full
    setup, draw = full.split("function draw")
    joined = extract_sketch(f"Setup:\n```js\n{setup.strip()}\n```\nDraw:\n```js\nfunction draw{draw}\n```")
    assert joined == setup.strip() + "\n\nfunction draw" + draw
    page = (f'<!doctype html>\n<html><head><script src="p5.min.js"></script><script src="p5.brush.js"></script>'
            f"</head>\n<body><script>\n{full}\n</script></body></html>")
    assert extract_sketch(f"```html\n{page}\n```") == full
    assert extract_sketch(page) == full
    assert extract_sketch("```js\nconst a = 1;\n```") == "const a = 1;"  # no sketch at all: the block as written


def test_unfinished_thinking_is_told_apart_from_an_answer():
    assert unfinished_thinking("<think>\nA sky, then ```js\nfunction setup() {")
    assert not unfinished_thinking("<think>short</think>\n```js\nfunction setup() {}\n```")
    assert not unfinished_thinking("```js\nfunction setup() {}\n```")
    assert not unfinished_thinking("```js\nfunction setup() {}\n```\n<think>and now")  # its answer came first


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True, timeout=120,
                          env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                               "PYTHONPATH": os.environ.get("PYTHONPATH", "")})  # a checkout run from its src/


def test_cli_bad_input_is_one_line(tmp_path):
    r = _cli("train", "--out", str(tmp_path / "run"), "--preset", "best")
    assert r.returncode == 2 and r.stderr.strip().startswith("error:") and "reward.preset" in r.stderr
    assert "Traceback" not in r.stderr
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"prompts": str(tmp_path / "missing.json")}))
    r = _cli("train", "--out", str(tmp_path / "run"), "--config", str(cfg), "--model", "tiny")
    assert r.returncode == 2 and "missing.json" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "run").exists()  # checked before --out is made: no empty run directory left behind
    cfg.write_text(json.dumps({"reward": {"extra": {"judge_timeot_s": 5}}}))  # read before any model loads
    r = _cli("train", "--out", str(tmp_path / "run2"), "--config", str(cfg), "--model", "tiny")
    assert r.returncode == 2 and "reward.extra.judge_timeot_s" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "run2").exists()
    cfg.write_text(json.dumps({"optim": {"extra_grpo_args": {"gradient_checkpointng": True}}}))
    r = _cli("train", "--out", str(tmp_path / "run3"), "--config", str(cfg), "--model", "tiny")
    assert r.returncode == 2 and "optim.extra_grpo_args" in r.stderr and "gradient_checkpointng" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "run3").exists()
    r = _cli("sft", "--out", str(tmp_path / "sft"), "--model", "tiny", "--demos", str(tmp_path / "no-demos"))
    assert r.returncode == 2 and "--demos" in r.stderr and "Traceback" not in r.stderr
    cfg.write_text(json.dumps({"model": {"name": str(tmp_path / "policy-in-config")}}))  # sft reads the file too
    r = _cli("sft", "--out", str(tmp_path / "sft"), "--config", str(cfg))
    assert r.returncode == 2 and "policy-in-config" in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = _cli("sft", "--out", str(tmp_path / "sft"), "--config", str(cfg), "--model", str(tmp_path / "policy-flag"))
    assert r.returncode == 2 and "policy-flag" in r.stderr, r.stderr  # and a flag still wins
    import importlib.util

    if importlib.util.find_spec("vllm") is None:  # the README's GPU config on a machine without vLLM
        cfg.write_text(json.dumps({"generation": {"use_vllm": True}}))
        r = _cli("train", "--out", str(tmp_path / "run4"), "--config", str(cfg), "--model", "tiny")
        assert r.returncode == 2 and "generation.use_vllm: vLLM is not installed" in r.stderr, r.stderr
    r = _cli("paint", "tiny", "a cat", "--mode", "watercolour")
    assert r.returncode == 2 and "--mode" in r.stderr
    for flag, path, needle in (("-o", "cat.txt", "-o must end in .png"),
                               ("--export", str(tmp_path / "c.json" / "cat.html"), "c.json is not a directory"),
                               ("-o", "/proc/cat.png", "-o /proc/cat.png: cannot write to /proc")):
        r = _cli("paint", "tiny", "a cat", flag, path)  # refused before the policy paints
        assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_every_environment_variable_the_code_reads_is_documented():
    import re

    used = set()
    for f in [*(REPO / "src").rglob("*.py"), *(REPO / "server").rglob("*.py")]:
        used |= set(re.findall(r"AQUARELLE_[A-Z_]*[A-Z]", f.read_text(encoding="utf-8")))
    doc = (REPO / "docs" / "config.md").read_text()
    missing = sorted(v for v in used if f"`{v}`" not in doc)
    assert used and not missing, f"docs/config.md does not name: {missing}"


@pytest.mark.parametrize("text, key, said", [
    ("optim:\n  max_steps: '3'\n", "optim.max_steps", "must be an integer, got str '3'"),
    ("optim:\n  max_steps: true\n", "optim.max_steps", "must be an integer, got bool True"),
    ("generation:\n  temperature: '0.7'\n", "generation.temperature", "must be a number (int or float), got str"),
    ("model:\n  lora: 'yes'\n", "model.lora", "valid boolean"),
])
def test_training_numbers_and_switches_are_not_coerced(tmp_path, text, key, said):
    """pydantic's lax mode read max_steps '3' as 3, true as 1 and lora 'yes' as true, where the reward config's
    numbers are strict: a quoted or mistyped value is one line naming the key, as in the reward section."""
    from aquarelle.train.config import ConfigError, load_config

    p = tmp_path / "c.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert str(e.value).startswith(f"config key {key}: ") and said in str(e.value), str(e.value)
    ok = tmp_path / "ok.yaml"
    ok.write_text("optim:\n  max_steps: 3\n  learning_rate: 1e-5\nmodel:\n  lora: yes\n  train_layers: all\n")
    cfg = load_config(ok)
    assert (cfg.optim.max_steps, cfg.optim.learning_rate, cfg.model.lora, cfg.model.train_layers) == (3, 1e-5, True,
                                                                                                      "all")


def test_empty_names_and_an_infinite_temperature_are_refused_before_training(tmp_path):
    """`train --out ''` and `--model ''` started training (a warm-start cache entry with no name), `paint ''` painted
    with the default policy and `--temperature inf` was taken where nan and -1 were not: each is one line, exit 2,
    before any model loads or anything is written."""
    cache = tmp_path / "cache"
    env = dict(os.environ, OMP_NUM_THREADS="1", AQUARELLE_CACHE=str(cache))
    for args, said in ((["train", "--out", ""], "error: --out is empty: name a directory"),
                       (["train", "--out", " ", "--model", "tiny"], "error: --out is empty: name a directory"),
                       (["train", "--out", str(tmp_path / "r"), "--model", ""], "error: --model is empty: name a policy"),
                       (["sft", "--out", str(tmp_path / "s"), "--model", ""], "error: --model is empty: name a policy"),
                       (["paint", "", "a cat"], "error: MODEL is empty: name a policy"),
                       (["train", "--out", str(tmp_path / "r"), "--model", "tiny", "--temperature", "inf"],
                        "error: config key generation.temperature: Input should be a finite number")):
        r = subprocess.run([sys.executable, "-m", "aquarelle.cli", *args], capture_output=True, text=True,
                           timeout=120, env=env)
        assert r.returncode == 2 and r.stderr.strip() == said, (args, r.stderr[-2000:])
    assert not (tmp_path / "r").exists() and not (tmp_path / "s").exists() and not cache.exists()


@pytest.mark.parametrize("data, words", [
    ([None, "a blue moon"], "prompt 0 must be a string or an object with a 'prompt', got NoneType"),
    ([1, "a blue moon"], "prompt 0 must be a string or an object with a 'prompt', got int"),
    ({"train": None, "heldout": ["x"]}, "split 'train' must hold a list of prompts, got NoneType"),
    ({"train": "a red sun", "heldout": ["x"]}, "split 'train' must hold a list of prompts, got str"),
    (["", "a blue moon"], "prompt 0 is empty"),
    (["   ", "a blue moon"], "prompt 0 is empty"),
    ({"train": [{"id": "a"}], "heldout": ["x"]}, "prompt 0 of 'train' has no 'prompt' text"),
    ([{"id": "a", "prompt": ["x"]}], "prompt 0: the prompt must be a string, got list"),
    ([{"id": "a", "prompt": "a red sun", "split": "tran"}], "prompt 0: split 'tran' is neither training"),
])
def test_a_malformed_prompt_row_is_named_not_trained_on(tmp_path, data, words):
    """Each was a traceback or trained on (the prompt '', 'None', one prompt per character, "['x']", a misspelt split)."""
    f = tmp_path / "p.json"
    f.write_text(json.dumps(data))
    with pytest.raises(DataError) as e:
        load_prompts(f)
    assert words in str(e.value) and str(f) in str(e.value) and "\n" not in str(e.value)


def test_held_out_split_names_are_one_rule_and_other_formats_read(tmp_path):
    rows = [{"id": "a", "prompt": "a red sun", "split": "Train"}, {"id": "b", "prompt": "a blue moon", "split": "validation"},
            {"id": "c", "prompt": "a green hill", "split": "held_out"}, {"id": "d", "prompt": "a grey sea"}]
    f = tmp_path / "p.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [r.id for r in load_prompts(f)] == ["a", "d"]
    assert [(r.id, r.split) for r in load_prompts(f, "heldout")] == [("b", "heldout"), ("c", "heldout")]
    y = tmp_path / "p.yaml"
    y.write_text("train: [a red sun, a grey sea]\nheldout: [a blue moon]\n")
    assert [r.prompt for r in load_prompts(y, "heldout")] == ["a blue moon"]


def test_sft_tiers_are_pool_tiers_and_demonstrations_left_out_are_named():
    """`sft.tiers: [great]` (or [] or [Love]) said "no demonstration fits mode 'tools'", and a love demonstration with
    a syntax error was dropped without a word ("sft: 6 demonstrations" of 7)."""
    from aquarelle.train.data import Demo, require_fitting

    for tiers, words in ((["great"], "sft.tiers.0: Input should be 'love', 'okay' or 'reject'"),
                         ([], "sft.tiers: List should have at least 1 item")):
        with pytest.raises(ConfigError, match=re.escape(words)):
            load_config(None, {"sft.tiers": tiers})
    good = (Path(__file__).resolve().parents[1] / "pool" / "sketches" / "fruit_pears.js").read_text()
    demos = [Demo("pears", "pears", "love", sketch=good), Demo("broken", "x", "love", sketch="function setup( {")]
    assert require_fitting(demos, "sketch", "full") == ["broken"]
    assert require_fitting(demos[:1], "sketch", "full") == []
    with pytest.raises(DataError, match="no demonstration fits"):
        require_fitting(demos[1:], "sketch", "full")


def test_a_prompt_file_that_is_not_utf8_is_named(tmp_path):
    """`prompts: garbage.js` gave a bare "'utf-8' codec can't decode ..." naming no file."""
    from aquarelle.train.data import DataError, load_prompts

    p = tmp_path / "garbage.js"
    p.write_bytes(b"\x00\x90\xff")
    with pytest.raises(DataError, match=rf"^prompt file {p} is not UTF-8 text \("):
        load_prompts(p)


def test_a_reward_setting_outside_reward_extra_says_where_it_goes():
    from aquarelle.train.config import ConfigError, config_from

    with pytest.raises(ConfigError, match=r"^config key reward.judge_timeout_s: Extra inputs are not permitted \(a "
                                          r"RewardConfig field: put it under reward.extra"):
        config_from({"reward": {"judge_timeout_s": 5}})
    with pytest.raises(ConfigError, match=r"^config key reward.bogus: Extra inputs are not permitted$"):
        config_from({"reward": {"bogus": 5}})
    assert config_from({"reward": {"extra": {"judge_timeout_s": 5}}}).reward.reward_config()["judge_timeout_s"] == 5


def test_extract_sketch_reads_a_hostile_completion_in_linear_time():
    """A first version of the <script> reading scanned every unclosed "<script" tag to the end of the text: 700 KB
    of them held the reward function for minutes (quadratic). Each case here takes well under a second."""
    import time

    for text in ("<script" * 100_000, "```html\n" + "<script " * 100_000, "<think>" * 100_000, "```\n" * 100_000,
                 "x```" * 200_000):
        t0 = time.perf_counter()
        extract_sketch(text)
        assert time.perf_counter() - t0 < 10, text[:20]


def test_half_precision_trains_over_float32_weights():
    """`model.dtype: bfloat16` loaded bfloat16 weights that the optimizer stepped directly: a 1e-5 step changed 15.6%
    of them (the rest rounded away), and float16 weights were all non-finite after one step. Full fine-tuning now
    loads float32 weights (bf16/fp16 are the GPU's mixed precision); a LoRA run keeps its frozen base in the dtype."""
    from aquarelle.train.config import load_config

    assert load_config(None, {"model.dtype": "bfloat16"}).model.weights_dtype() == "float32"
    assert load_config(None, {"model.dtype": "float16"}).model.weights_dtype() == "float32"
    assert load_config(None, {"model.dtype": "bfloat16", "model.lora": True}).model.weights_dtype() == "bfloat16"
    assert load_config(None, {}).model.weights_dtype() == "float32"


@pytest.mark.parametrize("reward, said", [
    ({"judge_url": "http://judge:8000/v1", "judge_model": "Qwen/Qwen3-VL-30B-A3B-Instruct"},
     "config key reward.judge_url: set, but judge_backend is local"),
    ({"judge_api_key_env": "JUDGE_KEY"}, "config key reward.judge_api_key_env: set, but judge_backend is local"),
    ({"preference_url": "http://hps:8765"}, "config key reward.preference_url: set, but preference_backend is local"),
    ({"extra": {"preset": "hps-only"}}, "config key reward.extra.preset: set reward.preset instead"),
    ({"extra": {"judge_backend": "openai"}}, "config key reward.extra.judge_backend: set reward.judge_backend"),
])
def test_reward_keys_a_run_would_not_read_are_refused(tmp_path, reward, said):
    """A config with the judge's URL and model but no `judge_backend: openai` trained (and `score` scored) with the
    built-in judge without a word; `reward.extra: {preset: ...}` was a 44-line TypeError, and a section key under
    extra silently beat the section's own."""
    import yaml

    from aquarelle.rewards.config import RewardError
    from aquarelle.rewards.config import load_config as load_reward_config

    from aquarelle.train.config import check_settings

    with pytest.raises(ConfigError, match="^" + re.escape(said)):  # a new run's preflight
        check_settings(load_config(None, {f"reward.{k}": v for k, v in reward.items()}))
    f = tmp_path / "cfg.yaml"  # `score`, `serve` and `pool validate --config` read the same section
    # (a section key under extra only shadows the section's: the reader leaves it, as a saved run trained with it)
    forms = ([{"reward": reward}] if "judge_backend" not in reward.get("extra", {}) else []) + \
        ([reward, {"rewards": reward}] if "extra" not in reward else [])
    for form in forms:  # a training config, a flat reward config, one under `rewards:`
        f.write_text(yaml.safe_dump(form))
        with pytest.raises(RewardError, match=re.escape(said.removeprefix("config key reward."))):
            load_reward_config(f)
    if "judge_url" in reward or "preference_url" in reward:  # with the backends that read them: taken
        served = {**reward, "judge_backend": "openai", "preference_backend": "hpsv3"}
        check_settings(load_config(None, {f"reward.{k}": v for k, v in served.items()}))
        f.write_text(yaml.safe_dump(reward))  # and a backend given on the command line counts
        assert load_reward_config(f, judge_backend="openai", preference_backend="hpsv3").judge_backend == "openai"


@pytest.mark.parametrize("over, said", [
    ({"optim.seed": -1}, "config key optim.seed"),
    ({"model.train_layers": 0}, "config key model.train_layers: must be at least 1 (or all), got 0"),
    ({"model.lora": True, "model.lora_target_modules": []}, "config key model.lora_target_modules: empty"),
    ({"model.lora": True, "model.lora_target_modules": "q_proj,v_proj"},
     "config key model.lora_target_modules: 'q_proj,v_proj' is one regular expression to PEFT, not a list: write "
     "[q_proj, v_proj]"),
    ({"generation.use_vllm": True, "generation.vllm_server_base_url": "http://vllm:8000"},
     "config key generation.vllm_server_base_url: set, but vllm_mode is colocate"),
    ({"generation.use_vllm": True, "generation.vllm_mode": "server", "generation.vllm_server_base_url": "vllm:8000"},
     "config key generation.vllm_server_base_url: 'vllm:8000' is not an http(s) URL with a host"),
    # a union's branch was named as if a key: "model.train_layers.function-before[check(), int]"
    ({"model.train_layers": "some"}, "config key model.train_layers: must be an integer"),
    ({"model.lora_target_modules": 5}, "config key model.lora_target_modules: "),
])
def test_settings_that_failed_after_the_model_loaded_or_were_ignored_are_one_line(over, said):
    """Each passed validation and then failed after the model (and a warm start) loaded, naming no key and leaving a
    run directory that blocked --out (seed -1, empty or comma-string LoRA targets), or was taken without effect
    (train_layers 0 trained every layer, a vLLM server URL in colocate mode ran vLLM inside the trainer)."""
    from aquarelle.train.config import check_settings

    with pytest.raises(ConfigError, match="^" + re.escape(said)):
        check_settings(load_config(None, over))


@pytest.mark.parametrize("extra, owner", [({"learning_rate": 0.5}, "optim.learning_rate"),
                                          ({"max_steps": 1}, "optim.max_steps"),
                                          ({"output_dir": "/tmp/elsewhere"}, "the run's --out"),
                                          ({"bf16": True}, "model.dtype")])
def test_extra_grpo_args_may_not_set_what_a_config_key_sets(tmp_path, extra, owner):
    """`extra_grpo_args: {max_steps: 1, learning_rate: 0.5, output_dir: ...}` won over the config's keys while
    config.json recorded theirs, and the checkpoints went where --resume never looks."""
    from aquarelle.train.preflight import grpo_config

    cfg = load_config(None, {"optim.extra_grpo_args": extra})
    key = next(iter(extra))
    with pytest.raises(ConfigError, match=re.escape(f"config key optim.extra_grpo_args.{key}: {owner} sets it")):
        grpo_config(cfg, tmp_path / "run", tools=True)
    grpo_config(load_config(None, {"optim.extra_grpo_args": {"logging_steps": 2}}), tmp_path / "run", tools=True)


def test_what_a_run_trained_with_stays_readable_and_a_regex_with_a_comma_passes(tmp_path):
    """The new run's checks are not the reader's: a run whose config set train_layers beside lora, or a judge URL
    its local judge ignored, trained so, and its config.json must still resume, serve and be probed as it trained.
    A PEFT regex may hold a comma (`layers\\.\\d{1,2}\\.`)."""
    from aquarelle.rewards.config import load_config as load_reward_config
    from aquarelle.train.config import check_settings, config_from

    trained = {"model": {"lora": True, "train_layers": 4}, "reward": {"judge_url": "http://judge:8000/v1"},
               "generation": {"vllm_server_base_url": "http://vllm:8000"}}
    cfg = config_from(json.loads(json.dumps(trained)))
    assert cfg.model.train_layers == 4 and cfg.reward.judge_url == "http://judge:8000/v1"
    run = tmp_path / "config.json"
    run.write_text(json.dumps({"config": cfg.model_dump()}))
    assert load_reward_config(run).judge_backend == "local"  # `serve --config RUN/config.json`
    check_settings(load_config(None, {"model.lora": True, "model.lora_target_modules": r"layers\.\d{1,2}\.q_proj"}))
    check_settings(load_config(None, {"generation.vllm_server_base_url": "http://vllm:8000"}))  # vLLM off: unread


@pytest.mark.parametrize("lora, loaded", [(False, "float32"), (True, "bfloat16")])
def test_a_bfloat16_run_loads_the_weights_it_trains_in_float32(tmp_path, monkeypatch, lora, loaded):
    """What `train` hands load_policy for `model.dtype: bfloat16`: float32 weights for full fine-tuning (the
    optimizer stepped bfloat16 ones and lost most 1e-5 updates), the dtype for a LoRA run's frozen base."""
    import aquarelle.train.grpo as grpo

    asked: list[str] = []

    def load_policy(src, dtype="float32"):
        asked.append(dtype)
        raise RuntimeError("stop here")

    monkeypatch.setattr(grpo, "load_policy", load_policy)
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({"prompts": [{"id": "sun", "subject": "sky", "prompt": "a red sun",
                                                "split": "train"}]}))
    cfg = load_config(None, {"model.name": "tiny", "mode": "sketch", "model.dtype": "bfloat16", "model.lora": lora,
                             "prompts": str(prompts), "optim.max_steps": 1})
    with pytest.raises(RuntimeError, match="stop here"):
        grpo.train(cfg, tmp_path / "run", log=lambda m: None)
    assert asked == [loaded]
