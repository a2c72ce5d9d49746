"""Wraps the model in DDP and moves the wrapper to the device afterwards. DDP sets up its
gradient hooks and buckets on the tensors it was given; on a GPU, DDP with `device_ids` refuses
a CPU model outright.

Caught by: test_train_rank_moves_the_model_before_wrapping_it
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    device = _ref._device_for(rank, world_size)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
    try:
        torch.manual_seed(seed)
        model = model_fn()
        ddp = DistributedDataParallel(model).to(device)
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
