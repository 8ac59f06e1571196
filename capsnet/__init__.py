"""A faithful, fast CapsNet (Sabour, Frosst & Hinton 2017, "Dynamic Routing Between Capsules")."""
from capsnet.loss import capsule_loss, margin_loss, reconstruction_loss
from capsnet.model import CapsNet, CapsNetConfig, CapsNetOutput
from capsnet.routing import dynamic_routing
from capsnet.squash import squash

__all__ = ["CapsNet", "CapsNetConfig", "CapsNetOutput", "capsule_loss", "dynamic_routing",
           "margin_loss", "reconstruction_loss", "squash"]
