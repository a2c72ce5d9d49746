"""Joins the process group and never leaves it: the next `init_process_group` in this process
fails ("trying to initialize the default process group twice"), and the group's resources stay
allocated.

Caught by: test_train_rank_destroys_the_process_group
"""

import reference.distributed as _ref
from reference.distributed import *


def train_rank(rank, world_size, *, init_method, model_fn, dataset, epochs, batch_size, lr, seed):
    device = _ref._device_for(rank, world_size)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world_size)
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
