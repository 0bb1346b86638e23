"""AlphaZero: a policy-value network learned by self-play with PUCT search, for every board game here.

* :mod:`agents.alphazero.encoding`: board planes from the mover's side, and the boards' symmetries;
* :mod:`agents.alphazero.network`: the residual policy-value network's parameters and a numpy forward pass;
* :mod:`agents.alphazero.agent`: :class:`AlphaZeroAgent` (the network as the evaluator of the shared search
  core, :mod:`agents.search.tree`), saved models and :func:`load_pretrained`;
* :mod:`agents.alphazero.selfplay`: batched self-play, one network call per simulation step for all games;
* :mod:`agents.alphazero.config`: the settings, each with its bounds: the network's shape (``NetConfig``),
  self-play's (``SelfPlayConfig``) and the training run's (``TrainConfig``);
* :mod:`agents.alphazero.workers`: the self-play worker pool, local processes or Ray tasks;
* :mod:`agents.alphazero.replay`: the replay window of recent positions;
* :mod:`agents.alphazero.checkpoint`: the training state file (``MODEL.train.npz``) and the learning curve;
* :mod:`agents.alphazero.training`: the training loop (PyTorch, the ``alphazero`` extra);
* :mod:`agents.alphazero.device`: the device training runs on (``auto``, ``cpu``, ``cuda``) and its speeds.

Playing a saved or shipped model needs numpy only; training needs PyTorch.
"""

from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator, load_pretrained

__all__ = ["AlphaZeroAgent", "NetworkEvaluator", "load_pretrained"]
