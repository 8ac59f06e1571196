"""Is the CapsNet better than the CNN baseline at reading two overlapping digits?

Sabour et al. 2017, section 6: on MultiMNIST (two digits of different classes, each moved by up to
4 pixels, their 28x28 frames overlapping 80% on average) the CapsNet misread 5.0% of the pairs,
the baseline CNN 8.1%. Here both networks trained on pairs (`train.py --task pairs`) read the SAME
test pairs: one for each of MNIST's 10,000 test digits, its partner a test digit of another
class, fixed by `capsnet.data.pairs.TEST_SEED` (`capsnet.data.pairs.fixed_pairs`). A pair is read right when
the network's two strongest digits (the CapsNet's two longest capsules, the CNN's two largest
sigmoids) are its two classes, as in the paper. Also:

- at least one of the two right; both right by how much the two digits' ink boxes overlap, and by
  how much the preprocessing shrank the pair to fit it into 20x20; the pairs of classes read worst;
- the CapsNet's pairs read with 1 to 5 routing iterations (it trained with 3, the paper's): what
  routing by agreement does for overlapping digits;
- the pairs only one network read right, and the CapsNet's lead with a 95% interval from a
  bootstrap over the pairs (`capsnet.studies.statistics.paired`);
- each pairs network's accuracy on MNIST's single test digits (the strongest digit);
- how well the CapsNet redraws each digit from its own capsule alone (the other masked): pixel
  error against that digit alone, beside the error of the whole overlay against it;
- how many digits each network says are there (`capsnet.digit_count`: two where its second-strongest
  score, and for the CapsNet the ink only that capsule's redrawing covers, reach lines chosen on
  written validation examples of the held-out training digits, train.py's); and with that count,
  how each reads other people's digits (Semeion, pairs and singles, evaluation only), MNIST's
  single test digits, and written test examples (`capsnet.data.written`), how often it names a
  digit that is not there, and a 1 where there is none.

The results go to pairs.json beside the pairs CapsNet's weights, tied to both networks' weights by
their sha256; the command reproduces it byte for byte.

    python -m capsnet.studies.pairs_measurement --data-dir ../shared/data   # writes weights/pairs/pairs.json
    python -m capsnet.studies.pairs_measurement --show                       # prints its tables

The study's parts, each a module named after it: the test pairs (pairs_measurement_test_pairs), the
count and other people's digits (pairs_measurement_people), the tables (pairs_measurement_tables) and
the file read back (pairs_measurement_file). The results and what they show: docs/pairs.md.
"""

import argparse
import time
from pathlib import Path

from capsnet.data.datasets import mnist
from capsnet.data.pairs import TEST_SEED
from capsnet.shipping.pretrained import WeightsError, load_pair_networks
from capsnet.studies.pairs_measurement_file import PAPER, RESULTS_FILE, load_results
from capsnet.studies.pairs_measurement_people import people_measures, people_sets
from capsnet.studies.pairs_measurement_tables import people_table, table
from capsnet.studies.pairs_measurement_test_pairs import measure
from capsnet.studies.results_file import WEIGHTS_SHA256, weights_sha256
from capsnet.studies.statistics import to_json
from capsnet.studies.study_flags import study_flags


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description="Measure the pairs CapsNet and the pairs CNN on the same overlapping "
        f"test pairs and write {RESULTS_FILE} beside the CapsNet's weights."
    )
    for flag, settings in study_flags("pairs", RESULTS_FILE).items():
        p.add_argument(flag, **settings)
    p.add_argument(
        "--semeion",
        default=None,
        help="Semeion's semeion.data, read as other people's digits (default: DATA/semeion/semeion.data)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="pair only the first N test digits (a quick check; the shipped file uses all 10,000)",
    )
    p.add_argument("--show", action="store_true", help="print the tables of OUT's results instead of measuring")
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else Path(args.capsnet) / RESULTS_FILE
    try:
        if args.show:
            results = load_results(out, args.capsnet, args.cnn)
            print(table(results) + "\n\n" + people_table(results))
            return
        capsnet, cnn = load_pair_networks(args.capsnet, args.cnn)
    except WeightsError as error:  # ResultsError among them
        raise SystemExit(f"capsnet.studies.pairs_measurement: error: {error}") from None
    semeion = Path(args.semeion or Path(args.data_dir) / "semeion" / "semeion.data")
    if not semeion.is_file():
        raise SystemExit(
            f"capsnet.studies.pairs_measurement: error: no Semeion digits at {semeion}: point --semeion at "
            "semeion.data (UCI's Semeion Handwritten Digit data set)"
        )
    start = time.perf_counter()
    test = mnist(args.data_dir, train=False)
    images, labels = test.data[: args.limit], test.targets[: args.limit]
    results = {
        WEIGHTS_SHA256: weights_sha256({"capsnet": args.capsnet, "cnn": args.cnn}),
        "pairs": f"capsnet.data.pairs.fixed_pairs of the first {len(images)} MNIST test digits, seed {TEST_SEED}: "
        "each with a test digit of another class, each moved by up to 4 pixels in a 36x36 field, "
        "the brighter pixel wins, then the playground's preprocessing into 28x28",
        "paper": PAPER,
        **measure(capsnet, cnn, images, labels, progress=True),
    }
    validation, sets = people_sets(mnist(args.data_dir, train=True), images, labels, semeion, args.limit)
    results["people"] = {
        "sets": {name: len(set_labels) for name, (_, set_labels) in sets.items()},
        **people_measures({"capsnet": capsnet, "cnn": cnn}, validation, sets, progress=True),
    }
    out.write_text(to_json(results), encoding="utf-8")
    print(f"wrote {out} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
