"""rlvr's NeMo-Gym resources server: ``/verify`` scores a response with rlvr.verify (rlvr.integrations.nemo_gym)."""
from rlvr.integrations.nemo_gym import ChemResourcesServer

if __name__ == "__main__":
    ChemResourcesServer.run_webserver()
