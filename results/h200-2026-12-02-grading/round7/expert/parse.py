import csv, sys, glob, os, re, json
def load(path):
    lines=open(path).read().splitlines()
    i=[k for k,l in enumerate(lines) if l.startswith('"ID"')][0]
    rows=list(csv.reader(lines[i:]))
    hdr=rows[0]; units=rows[1]; data=rows[2:]
    return hdr,units,data
def num(s):
    s=s.replace(',','')
    try: return float(s)
    except: return None
if __name__=='__main__':
    for f in sorted(glob.glob('../packet/captures/*.csv')):
        h,u,d=load(f)
        print(f, len(h), len(d))
