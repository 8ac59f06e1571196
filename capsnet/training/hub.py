"""A run's folder uploaded to the Hugging Face Hub as it is, but for its checkpoint (train.py --push-to-hub)."""

import sys
from pathlib import Path

from huggingface_hub import HfApi

from capsnet.training.state import CHECKPOINT_FILE


def push(folder: Path, repo: str) -> int:
    """Upload ``folder`` as it is (the weights, config.json, the model card, metrics.json; no
    temporary files, nor the run's checkpoint) to the Hub repo ``repo``, created where missing.
    Returns 0, or 1 where the upload fails (no network, no token, no right to the repo): the
    weights stay in ``folder``, and one line says why."""
    try:
        api = HfApi()
        repo_id = api.create_repo(repo, exist_ok=True).repo_id
        api.upload_folder(
            repo_id=repo_id,
            folder_path=folder,
            ignore_patterns=[".*", "*.tmp", CHECKPOINT_FILE],
            commit_message="train.py: the chosen weights, their model card and metrics.json",
        )
    except Exception as error:  # whatever stops the upload, the run itself is done
        reason = str(error).splitlines()[0] if str(error) else ""
        print(
            f"train.py: error: --push-to-hub {repo}: the upload failed ({error.__class__.__name__}: {reason}); "
            f"the weights are in {folder}/",
            file=sys.stderr,
        )
        return 1
    print(f"pushed {folder}/ to https://huggingface.co/{repo_id}")
    return 0
