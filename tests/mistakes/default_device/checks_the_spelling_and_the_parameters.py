"""Refuses `meta` by comparing the text (`device == "meta"`), so `meta:0` and
`torch.device("meta")` get through, and looks for real data among the parameters only, so a
real buffer is thrown away by `to_empty`.

Caught by: test_materialize_refuses_what_it_cannot_initialise
"""

import torch

from reference.default_device import *


def materialize(model, device):
    if device == "meta":
        raise ValueError("materialize: meta holds no data")
    real = [name for name, p in model.named_parameters() if p.device.type != "meta"]
    if real:
        raise ValueError(f"materialize: {', '.join(real)} already hold data")
    model.to_empty(device=torch.device(device))
    with torch.no_grad():
        for m in model.modules():
            own = [*m.parameters(recurse=False), *m.buffers(recurse=False)]
            if own and hasattr(m, "reset_parameters"):
                m.reset_parameters()
    return model
