"""A faithful, fast CapsNet (Sabour, Frosst & Hinton 2017, "Dynamic Routing Between Capsules").

The paper's network is this folder's top level, read in this order: squash (eq. 1), routing
(Procedure 1, and its trace for one image), model (Conv1, PrimaryCaps, DigitCaps, the decoder),
loss (eq. 4 and the reconstruction), dimensions (Figure 4's perturbed capsules), digit_count (one
digit or two, from the capsules of a network trained on pairs); beside it the CNN baseline
(baseline). Nothing here imports from the rooms below it:

    data/      what the networks read
    training/  the machinery of a train.py run
    studies/   what was measured about the trained networks
    shipping/  the trained network's files (metrics.json among them), card and graphs, and the
               engines that read it

Each room's own docstring maps its modules.
"""

from capsnet.loss import capsule_loss, margin_loss, reconstruction_loss
from capsnet.model import CapsNet, CapsNetConfig, CapsNetOutput
from capsnet.routing import dynamic_routing
from capsnet.shipping.pretrained import WeightsError, load_model
from capsnet.squash import squash

__all__ = [
    "CapsNet",
    "CapsNetConfig",
    "CapsNetOutput",
    "WeightsError",
    "capsule_loss",
    "dynamic_routing",
    "load_model",
    "margin_loss",
    "reconstruction_loss",
    "squash",
]
