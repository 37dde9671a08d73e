import Inject

print("inject-demo")
