"""Makes the "from_numpy" tensor with `torch.as_tensor(array)`. `as_tensor` shares memory only
when it can, and it follows the default device; `torch.from_numpy` always shares, on the CPU.

Caught by: test_creates_on_reports_where_each_tensor_lands
"""

from reference.default_device import *


def creates_on(device):
    with torch.device(device):
        made = {
            "torch.zeros": torch.zeros(2),
            "torch.tensor": torch.tensor([1.0, 2.0]),
            "torch.from_numpy": torch.as_tensor(np.zeros(2)),
            "nn.Linear": nn.Linear(2, 2).weight,
        }
    return {name: t.device for name, t in made.items()}
