"""Writes each loss in place into a log tensor on the device, which doubles its capacity when it
is full (the number of batches is not known in advance), and reads the filled part back once.
Checks the batch devices with `torch.device` comparisons on the first parameter's device, and
the losses for NaN and infinity with plain float comparisons, once they are read.
"""

from __future__ import annotations

import torch


def train_and_log(model, batches, optimizer, loss_fn):
    device = next(iter(model.parameters())).device
    log = torch.empty(8, device=device)
    steps = 0
    for x, y in batches:
        if x.device != device or y.device != device:
            raise ValueError(
                f"batch {steps}: x is on {x.device} and y on {y.device}; the model is on {device}"
            )
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if steps == len(log):
            bigger = torch.empty(2 * len(log), device=device)
            bigger[:steps] = log
            log = bigger
        log[steps] = loss.detach()  # a copy on the device: no wait
        steps += 1
    values = log[:steps].tolist() if steps else []
    for step, value in enumerate(values):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"training went wrong: the loss of step {step} is not finite")
    return values
