print("fakeentra")
