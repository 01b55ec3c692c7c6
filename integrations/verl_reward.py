"""verl custom reward function for CHORUS-style coverage RL, Python standard library only.

verl config:
    custom_reward_function.path=integrations/verl_reward.py
    custom_reward_function.name=compute_score

verl's documented interface: compute_score(data_source, solution_str, ground_truth, extra_info) -> float or dict
with "score". The design's files travel in the dataset item's `extra_info` (the server stays stateless):

    extra_info = {"dut": "acc", "sv_files": ["acc.sv"], "files": {"acc.sv": "module acc ..."},
                  "metrics": ["overall"]}          # metrics optional

`solution_str` is the model's reply (a filename line and one code block), parsed by the server as CHORUS's loop
parses it. The score is R = 1 + coverage, 0 when the testbench does not build or run. `compute_score` is async (verl's
async reward loop awaits it, many rollouts in flight); `compute_score_sync` is the same for a synchronous manager.
"""

import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chorus_client  # noqa: E402


def _design(extra_info):
    if not extra_info or "files" not in extra_info or "sv_files" not in extra_info or "dut" not in extra_info:
        raise ValueError('extra_info must hold the design: {"dut", "sv_files", "files"}')
    return {"dut": extra_info["dut"], "sv_files": extra_info["sv_files"], "files": extra_info["files"]}


def compute_score_sync(data_source, solution_str, ground_truth, extra_info=None):
    answer = chorus_client.reward(_design(extra_info), solution_str, metrics=(extra_info or {}).get("metrics"))
    # Numbers only beside "score": verl averages the extra keys into its metrics.
    return {
        "score": float(answer["reward"]),
        "coverage": float(answer["coverage"]),
        "built": 1.0 if answer["status"] == "ok" else 0.0,
        "cache_hit": 1.0 if answer["cache_hit"] else 0.0,
    }


async def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    # The HTTP call blocks; a thread keeps verl's event loop free for the other rollouts.
    return await asyncio.to_thread(compute_score_sync, data_source, solution_str, ground_truth, extra_info)
