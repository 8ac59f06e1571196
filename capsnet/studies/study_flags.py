"""The flags every study that compares the CapsNet with the CNN takes on its command line: where
MNIST is, the two networks' folders (by default those the page serves for the task) and the
results file it writes (by default beside the CapsNet's weights)."""

from capsnet.shipping.pretrained import SERVED_BY, WEIGHTS_FILE

NETWORKS = {"digits": ("the CapsNet", "the CNN baseline"), "pairs": ("the pairs CapsNet", "the pairs CNN")}


def study_flags(task: str, results_file: str) -> dict[str, dict]:
    """{flag: its ArgumentParser.add_argument keywords} for a study of ``task``'s two networks that
    writes ``results_file``."""
    capsnet, cnn = NETWORKS[task]
    return {
        "--data-dir": {"default": "./data", "help": "torchvision's MNIST folder (default: ./data)"},
        "--capsnet": {
            "default": SERVED_BY["capsnet", task].folder,
            "help": f"{capsnet}'s folder, holding {WEIGHTS_FILE} (default: %(default)s)",
        },
        "--cnn": {"default": SERVED_BY["cnn", task].folder, "help": f"{cnn}'s folder (default: %(default)s)"},
        "--out": {"default": None, "help": f"the JSON file to write (default: CAPSNET/{results_file})"},
    }
