"""MLP 64 -> 128 -> 64 -> 10 with ReLU (64 input features: sklearn's 8x8 digits, flattened).

mlp_gelu: the same layers with GELU in tanh form (nn.GELU(approximate="tanh"), GPT-2's "gelu_new"), the
activation cuBLASLt's GELU epilogue computes.
"""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, in_features=64, hidden=(128, 64), num_classes=10, activation=None):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden[0])
        self.fc2 = nn.Linear(hidden[0], hidden[1])
        self.fc3 = nn.Linear(hidden[1], num_classes)
        self.relu = activation if activation is not None else nn.ReLU()

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def build(seed=0):
    torch.manual_seed(seed)
    return MLP()


def build_gelu(seed=0):
    torch.manual_seed(seed)
    return MLP(activation=nn.GELU(approximate="tanh"))
