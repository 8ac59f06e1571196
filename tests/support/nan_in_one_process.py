"""train.py under torchrun with its loss made NaN in one process from a given step on, the
weights untouched (a NaN added to the loss's value, not to its gradient), so that only that process
sees it (tests/test_distributed.py):

    torchrun --standalone --nproc_per_node=2 tests/support/nan_in_one_process.py RANK STEP [train.py's flags]

Each process prints what train.train returned before it leaves torchrun's group.
"""

import os
import sys

import torch.distributed as dist

import train
from capsnet.training import losses


def main() -> None:
    nan_rank, nan_step, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    rank, loss, calls = int(os.environ["RANK"]), losses.capsule_loss, []

    def nan_in_one_process(*args):
        calls.append(1)
        return loss(*args) + (float("nan") if rank == nan_rank and len(calls) >= nan_step else 0.0)

    losses.capsule_loss = nan_in_one_process
    returned = train.train(train.parse_args(argv), argv)
    print(f"rank {rank}: train.py returned {returned}", flush=True)
    if dist.is_initialized():
        dist.destroy_process_group()
    sys.exit(returned)


if __name__ == "__main__":
    main()
