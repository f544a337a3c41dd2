"""The recogniser network's shape: the committed models' network, nothing else."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from referee.recognition.net import BLOCKS, STEM, CardNet  # noqa: E402


def test_the_network_is_the_committed_models_shape() -> None:
    net = CardNet(53)
    convs = [m for m in net.features if isinstance(m, torch.nn.Conv2d)]
    assert convs[0].out_channels == STEM and [c.out_channels for c in convs[2::2]] == [c for c, _ in BLOCKS]
    # the committed models' parameter count (0.78 MB of float32 weights with the classifier)
    assert sum(p.numel() for p in net.parameters()) == 193_048 + 13 * 129
    logits, emb = CardNet(40)(torch.zeros(2, 3, 96, 64))
    assert logits.shape == (2, 40) and emb.shape == (2, 128)


def test_card_factors_give_each_card_its_suit_and_rank_and_back_neither() -> None:
    from referee.cards import RECOGNISER_LABELS
    from referee.recognition.net import CardFactors

    f = CardFactors.of(RECOGNISER_LABELS["french"])
    assert f.suits == ("C", "D", "H", "S") and f.ranks[0] == "A" and len(f.ranks) == 13
    labels = RECOGNISER_LABELS["french"]
    assert (f.suit_of[labels.index("10S")], f.rank_of[labels.index("10S")]) == (3, 9)
    assert (f.suit_of[labels.index("back")], f.rank_of[labels.index("back")]) == (-1, -1)
    suit_map, rank_map = f.maps()
    assert suit_map.sum(0).tolist() == [1.0] * 52 + [0.0] and rank_map.sum().item() == 52


def test_factored_heads_add_a_suits_and_a_ranks_logit_to_each_card() -> None:
    from referee.cards import RECOGNISER_LABELS
    from referee.recognition.net import CardFactors

    labels = RECOGNISER_LABELS["french"]
    net = CardNet(53, factors=CardFactors.of(labels)).eval()
    with torch.no_grad():
        net.suit_head.bias.copy_(torch.tensor([0.0, 0.0, 0.0, 5.0]))  # spades up
        logits, _, suit, rank = net.parts(torch.zeros(1, 3, 96, 64))
        net.suit_head.bias.zero_()
        plain = net(torch.zeros(1, 3, 96, 64))[0]
    assert suit is not None and rank is not None and suit.shape == (1, 4) and rank.shape == (1, 13)
    gained = (logits - plain)[0]
    assert torch.allclose(gained[[labels.index(c) for c in ("AS", "10S", "KS")]], torch.tensor(5.0))
    assert torch.allclose(gained[[labels.index(c) for c in ("AC", "10H", "back")]], torch.tensor(0.0))


def test_a_factored_network_folds_into_the_plain_one_with_the_same_outputs() -> None:
    from referee.cards import RECOGNISER_LABELS
    from referee.recognition.net import CardFactors

    torch.manual_seed(0)
    net = CardNet(53, factors=CardFactors.of(RECOGNISER_LABELS["french"]))
    x = torch.randn(8, 3, 96, 64)
    net.train()
    net(x)  # BatchNorm statistics away from their initial values
    net.eval()
    with torch.no_grad():
        for head in (net.suit_head, net.rank_head):
            head.weight.normal_()
            head.bias.normal_()
        want, want_emb = net(x)
        folded = net.folded()
        got, got_emb = folded(x)
    assert type(folded) is CardNet and folded.factors is None and not folded.training
    assert sum(p.numel() for p in folded.parameters()) == sum(p.numel() for p in CardNet(53).parameters())
    assert torch.allclose(got, want, atol=1e-5) and torch.allclose(got_emb, want_emb)


def test_the_heads_leave_the_plain_networks_initial_weights_as_they_were() -> None:
    from referee.cards import RECOGNISER_LABELS
    from referee.recognition.net import CardFactors

    torch.manual_seed(5)
    plain = CardNet(53).state_dict()
    torch.manual_seed(5)
    factored = CardNet(53, factors=CardFactors.of(RECOGNISER_LABELS["french"])).state_dict()
    assert all(torch.equal(v, factored[k]) for k, v in plain.items())
    assert CardNet(53).folded().factors is None
