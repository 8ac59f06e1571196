"""The machinery of a train.py run, one concern a module; it imports capsnet's top level,
capsnet.data and capsnet.shipping (what a run saves, metrics.json's format among it), never
capsnet.studies.

    processes       where a process stands among torchrun's, what they agree on, its device and bf16
    signals         SIGINT and SIGTERM recorded, so that a run stops where it can go on from
    sharded_data    each process's shard of the training images, pairs or written examples, its
                    share of the held-out ones, and the test sets read at the end
    random_state    each epoch's seed, and a process's random state kept in a checkpoint
    losses          what a training step minimises, for each network and task
    epoch_losses    an epoch's losses read back from the device in blocks; a non-finite one stops the run
    moving_average  the moving average of the weights that is evaluated and saved
    options         what a run is asked to do: train.py's flags, checked and typed; the recipe --resume
                    must repeat; the one-line error of a run that cannot go on
    run             a run's options, process, device, stop signals and folder (where its checkpoint lies)
    validation      what chooses the epoch: the held-out images read right, or written examples read exactly
    state           a run's state, which its checkpoint keeps: written, read and checked
    resume          where a run begins: a new run's state, then the checkpoint --resume names, or
                    --init-from weights to beat
    out_folder      the best weights so far and their record, a stop recorded, what is kept after one
    final_reads     the chosen weights read once on the test sets at the end
    run_record      what the run's metrics.json says: what it was asked, where it stands, the record
                    of the run it went on from, its command as anyone can repeat it
    hub             a run's folder uploaded to the Hugging Face Hub
"""
