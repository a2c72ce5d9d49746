"""Never seeds before `model_fn()`: DDP copies rank 0's random weights to the other ranks, so
they agree, but no two runs start from the same weights and nothing can be reproduced.

Caught by: test_one_rank_trains_like_one_process
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    device = _ref._device_for(rank, world_size)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    try:
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
