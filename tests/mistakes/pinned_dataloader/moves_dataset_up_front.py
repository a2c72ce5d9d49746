"""Moves the whole dataset to the device when the loader is made, so all of it must fit in
device memory at once, instead of moving one batch at a time.

Caught by: test_make_loader_leaves_the_dataset_where_it_is
"""

from torch.utils.data import TensorDataset

import reference.pinned_dataloader as _ref
from reference.pinned_dataloader import *


def make_loader(dataset, batch_size, device, *, shuffle=True):
    if isinstance(dataset, TensorDataset):
        dataset = TensorDataset(*(t.to(device) for t in dataset.tensors))
    return _ref.make_loader(dataset, batch_size, device, shuffle=shuffle)
