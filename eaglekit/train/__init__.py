"""Train an EAGLE-3 draft head on feature shards: streamed, packed batches (`data`); training-time-test
unroll and soft cross-entropy against the target restricted to the draft vocabulary (`objective`);
checkpoints that resume exactly: model, optimizer, scheduler, step, data position, RNG (`checkpoint`);
and the loop, set-up -> step -> eval -> save over one `Run` state, DDP or FSDP under torchrun (`loop`).
What the run takes: `config.TrainConfig`."""
from eaglekit.train.checkpoint import (gather_state, init_draft, latest_checkpoint, load_draft,  # noqa: F401
                                       save_checkpoint, wrap_parallel)
from eaglekit.train.config import TrainConfig, TrainError  # noqa: F401
from eaglekit.train.data import (Cursor, collate, count_packed_rows, global_batches, is_heldout,  # noqa: F401
                                 iter_docs, pack, prefetch)
from eaglekit.train.loop import Run, _on_device, check_shards, lr_lambda, train  # noqa: F401
from eaglekit.train.objective import Teacher, TTTModel, shift, step_masks, summarize, ttt_bias  # noqa: F401
