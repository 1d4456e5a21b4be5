jest
