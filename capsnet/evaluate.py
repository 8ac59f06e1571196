"""Accuracy of a CapsNet on MNIST's test set, and on Semeion (other people's handwriting)."""
import torch

from capsnet.model import CapsNet


@torch.inference_mode()
def accuracy(model: CapsNet, loader: torch.utils.data.DataLoader, device: torch.device) -> float:
    """The fraction of the loader's images whose longest capsule is the true digit."""
    model.eval()
    correct = total = 0
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        correct += (model(images).prediction == labels).sum().item()
        total += labels.numel()
    return correct / total
