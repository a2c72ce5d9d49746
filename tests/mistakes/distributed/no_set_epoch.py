"""Never calls `sampler.set_epoch(epoch)`: DistributedSampler shuffles with `seed + epoch`, and
its epoch stays 0, so every epoch reads the same shuffle as the first.

Caught by: test_every_epoch_reads_a_new_shuffle, test_one_rank_trains_like_one_process
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
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
        for _ in range(epochs):
            for inputs, targets in loader:
                optimizer.zero_grad()
                nn.MSELoss()(ddp(inputs.to(device)), targets.to(device)).backward()
                optimizer.step()
        return {name: t.detach().cpu().clone() for name, t in model.state_dict().items()}
    finally:
        dist.destroy_process_group()
