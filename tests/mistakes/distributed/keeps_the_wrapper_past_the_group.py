"""Trains inline, so its DDP wrapper is still a local variable when the `finally` destroys the
process group: the wrapper (and its reducer, which holds the group) is freed after the group,
which can deadlock torch 2.13 when a gloo thread is finishing an all-reduce.

Caught by: test_the_ddp_wrapper_is_gone_before_the_group
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    _ref._check_counts(world_size=(world_size, 1), epochs=(epochs, 0), batch_size=(batch_size, 1))
    if not 0 <= rank < world_size:
        raise ValueError(f"rank must be in [0, {world_size}), not {rank}")
    device = _ref._device_for(rank, world_size)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    try:
        torch.manual_seed(seed)
        model = model_fn().to(device)
        ddp = DistributedDataParallel(model)
        sampler = DistributedSampler(
            dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=seed
        )
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        optimizer = torch.optim.SGD(ddp.parameters(), lr=lr)
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for inputs, targets in loader:
                optimizer.zero_grad()
                nn.MSELoss()(ddp(inputs.to(device)), targets.to(device)).backward()
                optimizer.step()
        return {name: t.detach().cpu().clone() for name, t in model.state_dict().items()}
    finally:
        dist.destroy_process_group()
