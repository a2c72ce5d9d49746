"""Clears the gradients once before the loop and again after each step (so every step still
starts from fresh ones), keeps each loss as a detached 1-element view, and reads back
`torch.stack(...).flatten()` once, then looks for a loss that is not finite with `math`."""

import math

import torch


def train_and_log(model, batches, optimizer, loss_fn):
    device = next(model.parameters()).device
    kept = []
    optimizer.zero_grad()
    for i, batch in enumerate(batches):
        x, y = batch
        bad = [f"{n} on {t.device}" for n, t in (("x", x), ("y", y)) if t.device != device]
        if bad:
            raise ValueError(f"batch {i} has {', '.join(bad)}; the model is on {device}")
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        with torch.no_grad():
            kept.append(loss.detach().view(1))
    log = [] if not kept else torch.stack(kept).flatten().tolist()
    first = next((i for i, v in enumerate(log) if not math.isfinite(v)), None)
    if first is not None:
        raise ValueError(f"step {first}: the loss is not finite ({log[first]})")
    return log
