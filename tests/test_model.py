import pytest
import torch

from capsnet import CapsNet
from tests.support.examples import example_digits


def test_parameter_count_matches_the_paper(model):
    total = sum(p.numel() for p in model.parameters())
    decoder = sum(p.numel() for p in model.decoder.parameters())
    # Conv1 20,992 + PrimaryCaps 5,308,672 + W_ij 1,474,560 = 6,804,224; decoder 1,411,344.
    assert total - decoder == 6_804_224
    assert total == 8_215_568


@pytest.mark.parametrize("batch", [1, 3])
def test_output_shapes_and_no_nan(model, batch):
    out = model(torch.rand(batch, 1, 28, 28))
    assert out.capsules.shape == (batch, 10, 16)
    assert out.lengths.shape == (batch, 10)
    assert out.prediction.shape == (batch,)
    assert out.reconstruction.shape == (batch, 1, 28, 28)
    assert out.couplings.shape == (batch, 1152, 10)
    for name, tensor in vars(out).items():
        assert torch.isfinite(tensor.float()).all(), name
    assert ((out.reconstruction >= 0) & (out.reconstruction <= 1)).all()
    assert torch.equal(out.prediction, out.lengths.argmax(dim=1))


def test_couplings_sum_to_one_over_the_digit_capsules(model):
    out = model(torch.rand(2, 1, 28, 28))
    torch.testing.assert_close(out.couplings.sum(dim=2), torch.ones(2, 1152))


@pytest.mark.parametrize("batch", [2, 9], ids=["routing-u_hat", "routing-from-W"])
def test_one_routing_iteration_gives_uniform_couplings_and_three_do_not(trained_model, batch):
    # Trained weights: an untrained network's three iterations leave the couplings within ~1e-8 of 0.1.
    images = example_digits()[0][:batch]
    with torch.inference_mode():
        once, thrice = (trained_model(images, routing_iterations=r).couplings for r in (1, 3))
    torch.testing.assert_close(once, torch.full((batch, 1152, 10), 0.1))
    assert (thrice - 0.1).abs().max() > 0.1


def test_routing_logits_are_per_example(model):
    with torch.no_grad():
        model.digits.W.mul_(100)  # large votes, so that routing moves far from uniform
    images = torch.rand(2, 1, 28, 28)
    together = model(images).couplings
    alone = torch.cat([model(images[i : i + 1]).couplings for i in range(2)])
    torch.testing.assert_close(together, alone, rtol=1e-4, atol=1e-6)
    assert (together[0] - together[1]).abs().max() > 0.01  # no logits shared across the batch


def test_a_digit_reads_the_same_alone_as_in_a_batch(trained_model, mnist_test):
    # Alone, a digit's routing works on u_hat; in a batch of 9, from W without building u_hat.
    images = mnist_test.data[:9].unsqueeze(1).float() / 255
    with torch.inference_mode():
        together = trained_model(images)
        alone = [trained_model(images[i : i + 1]) for i in range(9)]
    for name in vars(together):
        torch.testing.assert_close(
            getattr(together, name), torch.cat([getattr(out, name) for out in alone]), rtol=1e-4, atol=1e-5, msg=name
        )
    assert together.couplings.amax() > 0.2  # routing moved away from a uniform 0.1


def test_capsules_are_the_forward_pass_s_capsules_and_lengths(trained_model):
    images = example_digits()[0][:4]
    with torch.inference_mode():
        (capsules, lengths), out = trained_model.capsules(images), trained_model(images)
        twice = trained_model(images, routing_iterations=2)
    torch.testing.assert_close(capsules, out.capsules)
    torch.testing.assert_close(lengths, out.lengths)
    assert (twice.lengths - out.lengths).abs().max() > 0.01  # a routing iteration short would show


def test_backward_reaches_every_parameter(model):
    images, labels = torch.rand(2, 1, 28, 28), torch.tensor([3, 7])
    out = model(images, labels)
    (out.lengths.sum() + out.reconstruction.sum()).backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_decoder_sees_only_the_masked_capsule(model):
    capsules = torch.randn(2, 10, 16)
    labels = torch.tensor([4, 9])
    changed = capsules.clone()
    changed[0, :4] += 1.0  # every capsule but the label's
    changed[1, :9] -= 1.0
    torch.testing.assert_close(model.decode(capsules, labels), model.decode(changed, labels))
    other = capsules.clone()
    other[0, 4] += 1.0  # the label's own capsule
    assert not torch.allclose(model.decode(capsules, labels)[0], model.decode(other, labels)[0])


def test_labels_mask_in_training_and_longest_capsule_at_inference(model):
    with torch.no_grad():  # an untrained network's capsules are too short for its decoder to tell apart
        model.digits.W *= 100
    images = torch.rand(2, 1, 28, 28)
    with torch.no_grad():
        inferred = model(images)
        by_prediction = model.decode(inferred.capsules, inferred.prediction)
        torch.testing.assert_close(inferred.reconstruction, by_prediction)
        labels = (inferred.prediction + 1) % 10
        trained = model(images, labels)
        torch.testing.assert_close(trained.reconstruction, model.decode(trained.capsules, labels))
    assert (trained.reconstruction - by_prediction).abs().max() > 1e-3  # 100x the tolerance: another image


def test_save_and_load_round_trip_gives_identical_outputs(model, tmp_path):
    model.save_pretrained(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "config.json", "model.safetensors"]
    assert "Paper: https://arxiv.org/abs/1710.09829" in (tmp_path / "README.md").read_text()  # the model card
    loaded = CapsNet.from_pretrained(tmp_path, strict=True)
    assert loaded.config == model.config
    images = torch.rand(2, 1, 28, 28)
    with torch.inference_mode():
        before, after = model(images), loaded(images)
    for name in vars(before):
        assert torch.equal(getattr(before, name), getattr(after, name)), name
