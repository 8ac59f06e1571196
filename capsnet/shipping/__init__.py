"""The trained network as it leaves training: the files it is saved in, the card the Hub shows
beside them, the graphs a browser runs, the engines that read it fast on a CPU, and its accuracy.

    saving        files on disk written whole, and known by their SHA-256
    pretrained    weights loaded from a folder or the Hub, only from safetensors, checked on the way
    metrics_file  metrics.json, what a run records beside the weights it chose: written and read
    model_card    the README.md the Hub shows beside the weights: measured and written
    model_card_text
                  the card's text, section by section
    evaluate      accuracy on MNIST's test set and on Semeion (other people's handwriting)
    onnx_file     the networks, their decoder, the routing and the turn of a digit as ONNX graphs,
                  exported from the library
    onnx_products two steps of the CapsNet's graph as the matrix products the page runs faster
    kept_graphs   each graph exported once and kept on disk, keyed by its weights and the exporting code
    published_graphs
                  the graphs published beside the weights in a model repo's onnx/, vouched for by
                  onnx/graphs.json, read instead of exported where they are the weights' own
    compiled      the network compiled for one image at a time (TorchInductor, weights frozen)
    packed        convolutions whose weights are packed for oneDNN once, for reading on the CPU

It imports the paper's network and capsnet.data, never capsnet.training, which writes metrics.json
through metrics_file; model_card and evaluate read MNIST.
"""
