#!/usr/bin/env python3
"""A tiny training loop recorded with xtview.recorder (also importable as `xtrecorder`): a
two-layer MLP fitting a noisy sine.

Uses PyTorch when it can be imported, else numpy (same model, hand-written gradients). Records
weights, gradients, an activation summary, the loss and the learning rate each step, and the
configuration once. Run it, then look at the result:

    XT_RECORDER_LIB=build/release/core/recorder/libxtrecorder.so PYTHONPATH=python \
        python3 examples/record_training_loop.py /tmp/mlp_run --steps 200
    xtrace info /tmp/mlp_run
    PYTHONPATH=build/release/python python3 -c \
        "import xtview; print(xtview.open('/tmp/mlp_run').stats(key='loss'))"
"""

import argparse
import json
import time

import numpy as np

from xtview import recorder


def numpy_loop(rec, steps, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, size=(64, 1)).astype(np.float32)
    y = (np.sin(x) + 0.05 * rng.standard_normal(x.shape)).astype(np.float32)
    w1 = (rng.standard_normal((1, 32)) * 0.5).astype(np.float32)
    b1 = np.zeros(32, np.float32)
    w2 = (rng.standard_normal((32, 1)) * 0.2).astype(np.float32)
    lr = np.float32(0.05)
    rec.trace_callback("optimizer/lr", lambda: np.float32(lr))
    for step in range(steps):
        h = np.maximum(x @ w1 + b1, 0)
        pred = h @ w2
        err = pred - y
        loss = np.float32(np.mean(err ** 2))
        g_pred = 2 * err / len(x)
        g_w2 = h.T @ g_pred
        g_h = (g_pred @ w2.T) * (h > 0)
        g_w1 = x.T @ g_h
        g_b1 = g_h.sum(axis=0)
        if rec.is_recorded_step():
            rec.trace("fc1/weight", w1)
            rec.trace("fc1/bias", b1)
            rec.trace("fc2/weight", w2)
            rec.trace("gradient/fc1/weight", g_w1)
            rec.trace("gradient/fc2/weight", g_w2)
            rec.trace("fc1/activation", h)
            rec.trace("loss", loss)
        w1 -= lr * g_w1
        b1 -= lr * g_b1
        w2 -= lr * g_w2
        if step == steps // 2:
            lr = np.float32(lr * 0.5)
        rec.commit_step(step)
    return float(loss)


def torch_loop(rec, steps, seed, torch):
    torch.manual_seed(seed)
    x = torch.rand(64, 1) * 6 - 3
    y = torch.sin(x) + 0.05 * torch.randn_like(x)
    model = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(steps // 2, 1), gamma=0.5)
    rec.trace_callback("optimizer/lr",
                       lambda: np.float32(opt.param_groups[0]["lr"]))
    loss = None
    for step in range(steps):
        opt.zero_grad()
        h = model[1](model[0](x))
        pred = model[2](h)
        loss = torch.mean((pred - y) ** 2)
        loss.backward()
        if rec.is_recorded_step():
            rec.trace("fc1/weight", model[0].weight.detach().numpy())
            rec.trace("fc1/bias", model[0].bias.detach().numpy())
            rec.trace("fc2/weight", model[2].weight.detach().numpy())
            rec.trace("gradient/fc1/weight", model[0].weight.grad.numpy())
            rec.trace("gradient/fc2/weight", model[2].weight.grad.numpy())
            rec.trace("fc1/activation", h.detach().numpy())
            rec.trace("loss", np.float32(loss.item()))
        opt.step()
        sched.step()
        rec.commit_step(step)
    return float(loss.item())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output_dir")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--every", type=int, default=1, help="record every N steps")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--numpy", action="store_true", help="do not use PyTorch even if present")
    args = ap.parse_args()
    try:
        if args.numpy:
            raise ImportError
        import torch
    except ImportError:
        torch = None
    backend = "torch" if torch is not None else "numpy"
    config = {"model": "mlp-1-32-1", "lr": 0.05, "steps": args.steps, "seed": args.seed,
              "backend": backend}
    with recorder.Recorder(args.output_dir, every_n_steps=args.every) as rec:
        # Activations are large; record their mean over the batch (axis 0).
        rec.set_summary("fc1/activation", lambda a: a.mean(axis=0))
        rec.trace_once_text("config", json.dumps(config, sort_keys=True))
        t0 = time.perf_counter()
        if torch is not None:
            loss = torch_loop(rec, args.steps, args.seed, torch)
        else:
            loss = numpy_loop(rec, args.steps, args.seed)
        elapsed = time.perf_counter() - t0
    stats = rec.stats()
    print("%s loop: %d steps in %.2f s, final loss %.4f, %d records, %d bytes" %
          (backend, args.steps, elapsed, loss, stats["written"], stats["bytes_written"]))


if __name__ == "__main__":
    main()
