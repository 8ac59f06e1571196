"""A faithful, fast CapsNet (Sabour, Frosst & Hinton 2017, "Dynamic Routing Between Capsules")."""
from capsnet.loss import capsule_loss, margin_loss, reconstruction_loss
from capsnet.model import CapsNet, CapsNetConfig, CapsNetOutput
from capsnet.pretrained import WeightsError, load_model
from capsnet.preprocess import ink_to_mnist, sketch_to_mnist
from capsnet.routing import dynamic_routing
from capsnet.squash import squash

__all__ = ["CapsNet", "CapsNetConfig", "CapsNetOutput", "WeightsError", "capsule_loss", "dynamic_routing",
           "ink_to_mnist", "load_model", "margin_loss", "reconstruction_loss", "sketch_to_mnist",
           "squash"]
