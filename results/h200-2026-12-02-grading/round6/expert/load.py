import csv
P='/work/grading6/packet/captures/'
CAPS=['densenet_train','mixtral_train','whisper_train','fasterrcnn_infer','cupy_cg','deeplab_infer']
def num(s):
    s=s.replace(',','')
    try: return float(s)
    except: return None
def load(c):
    L=open(P+c+'.full.csv').read().splitlines()
    i=[k for k,l in enumerate(L) if l.startswith('"ID"')][0]
    r=list(csv.reader(L[i:]))
    h=r[0]; rows=r[1:]
    units=None
    if rows and rows[0][0]=='' : units=rows[0]; rows=rows[1:]
    return h,units,[dict(zip(h,x)) for x in rows]
